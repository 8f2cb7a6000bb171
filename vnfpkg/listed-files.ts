import { PackageError } from './package-error';
import { isUrl, toPackagePath } from './package-path';
import { parseToscaMeta, TOSCA_META_PATH as META, type ToscaMeta, type ToscaMetaEntry } from './tosca-meta';

/** A package file's digests, computed while it was streamed out of the zip: hex by node:crypto name. */
export interface FileHashes {
  hashes: Record<string, string>;
}

/** SOL004 hash algorithm names -> node:crypto names. */
const ALGORITHMS: Record<string, string> = {
  'sha-256': 'sha256',
  'sha-384': 'sha384',
  'sha-512': 'sha512',
};

/**
 * Checks every file TOSCA.meta lists: it must be in the package, and when the
 * block carries Algorithm/Hash the content must match. Hashes written as
 * placeholders ("<Calculated value here>", as in Tacker's sample packages)
 * are skipped: the author never filled them in, so there is nothing to check.
 * Files given by URL are fetched later (if ever) and are not checked here.
 * The digests are those computed while extracting (listedAlgorithms says which).
 */
export function verifyListedFiles(meta: ToscaMeta, files: Record<string, FileHashes>): void {
  for (const entry of meta.entries) {
    if (isUrl(entry.name)) continue;
    const path = toPackagePath(entry.name);
    if (path === undefined) {
      throw new PackageError(`${META} lists "${entry.name}", which is outside the package`);
    }
    const file = files[path];
    if (file === undefined) {
      throw new PackageError(`${META} lists "${entry.name}", but the package has no such file`);
    }
    verifyHash(entry, file);
  }
}

/**
 * The hash algorithms (node:crypto names) TOSCA.meta asks of each file, read
 * before the files are extracted so the digests are computed on the way. A
 * TOSCA.meta that does not parse asks for none: readCsar reports it later.
 */
export function listedAlgorithms(metaText: string): Map<string, string[]> {
  const wanted = new Map<string, string[]>();
  let meta: ToscaMeta;
  try {
    meta = parseToscaMeta(metaText);
  } catch {
    return wanted;
  }
  for (const entry of meta.entries) {
    const path = isUrl(entry.name) ? undefined : toPackagePath(entry.name);
    const algorithm = entry.algorithm && nodeAlgorithm(entry.algorithm);
    if (path && algorithm) wanted.set(path, [...(wanted.get(path) ?? []), algorithm]);
  }
  return wanted;
}

function nodeAlgorithm(sol004Name: string): string | undefined {
  return ALGORITHMS[sol004Name.toLowerCase().replace(/^sha-?/, 'sha-')];
}

function verifyHash(entry: ToscaMetaEntry, file: FileHashes): void {
  const { algorithm, hash } = entry;
  if (!algorithm && !hash) return;
  if (!algorithm || !hash) {
    throw new PackageError(`${META}: "${entry.name}" has ${algorithm ? 'Algorithm but no Hash' : 'Hash but no Algorithm'}`);
  }
  if (isPlaceholder(hash)) return;

  const node = nodeAlgorithm(algorithm);
  if (!node) {
    throw new PackageError(`${META}: "${entry.name}" uses unsupported hash algorithm "${algorithm}" (use SHA-256 or SHA-512)`);
  }
  if (!/^[0-9a-fA-F]+$/.test(hash)) {
    throw new PackageError(`${META}: the Hash of "${entry.name}" is not a hexadecimal digest: "${hash}"`);
  }
  const actual = file.hashes[node];
  if (actual === undefined) throw new Error(`no ${node} digest of "${entry.name}" was computed while extracting`);
  if (actual !== hash.toLowerCase()) {
    throw new PackageError(
      `${META}: ${algorithm} hash mismatch for "${entry.name}": TOSCA.meta says ${hash.toLowerCase()}, the file hashes to ${actual}`,
    );
  }
}

/** "<Calculated value here>" and the like: an unfilled template value. */
function isPlaceholder(hash: string): boolean {
  return /^<.*>$/.test(hash.trim());
}
