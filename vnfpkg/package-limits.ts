/**
 * What a package may make the worker hold: a zip bomb, a zip of a million
 * entries or a VNFD asking for a million VNFCs fails onboarding with a
 * PackageError naming the limit, instead of exhausting the worker. Files
 * are streamed into the content store; only TOSCA.meta and the VNFD's
 * YAML files are read into memory (vnfdFileBytes).
 */

/** An entry may inflate to this much whatever its ratio: small, very regular files (padded YAML, a filler script) are not bombs; the total cap still bounds them. */
export const RATIO_FREE_BYTES = 4 * 1024 * 1024;
