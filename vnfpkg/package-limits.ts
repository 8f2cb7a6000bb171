/**
 * What a package may make the worker hold: a zip bomb, a zip of a million
 * entries or a VNFD asking for a million VNFCs fails onboarding with a
 * PackageError naming the limit, instead of exhausting the worker. Files
 * are streamed into the content store; only TOSCA.meta and the VNFD's
 * YAML files are read into memory (vnfdFileBytes).
 */
export interface PackageLimits {
  /** Sum of the inflated entries (bytes actually produced, not declared). */
  unzippedBytes: number;
  /** Inflated / compressed size of one entry, above RATIO_FREE_BYTES. */
  ratio: number;
  /** Entries in the zip (directories included). */
  entries: number;
  /** The VNFD model as stored (JSON bytes). */
  vnfdBytes: number;
  /** TOSCA.meta and the VNFD's YAML files (entry and imports) together: the only files onboarding reads into memory. */
  vnfdFileBytes: number;
  /** Instances of one VDU anywhere in a flavour. */
  vduInstances: number;
}

export const PACKAGE_LIMIT_DEFAULTS: PackageLimits = {
  unzippedBytes: 2 * 1024 * 1024 * 1024,
  ratio: 200,
  entries: 10_000,
  vnfdBytes: 4 * 1024 * 1024,
  vnfdFileBytes: 16 * 1024 * 1024,
  vduInstances: 100,
};

/** An entry may inflate to this much whatever its ratio: small, very regular files (padded YAML, a filler script) are not bombs; the total cap still bounds them. */
export const RATIO_FREE_BYTES = 4 * 1024 * 1024;
