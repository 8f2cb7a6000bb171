/**
 * What a package may make the worker hold (PACKAGE_MAX_* settings), enforced
 * by vnfpkg/package-limits.ts: a zip bomb, a zip of a million entries or a
 * VNFD asking for a million VNFCs fails onboarding naming the limit.
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
