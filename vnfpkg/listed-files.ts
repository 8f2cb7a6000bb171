import { createHash } from 'node:crypto';
import { PackageError } from './package-error';
import { isUrl, toPackagePath } from './package-path';
import { TOSCA_META_PATH as META, type ToscaMeta, type ToscaMetaEntry } from './tosca-meta';

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
 */
export function verifyListedFiles(meta: ToscaMeta, files: Record<string, Buffer>): void {
  for (const entry of meta.entries) {
    if (isUrl(entry.name)) continue;
    const path = toPackagePath(entry.name);
    if (path === undefined) {
      throw new PackageError(`${META} lists "${entry.name}", which is outside the package`);
    }
    const content = files[path];
    if (content === undefined) {
      throw new PackageError(`${META} lists "${entry.name}", but the package has no such file`);
    }
    verifyHash(entry, content);
  }
}

function verifyHash(entry: ToscaMetaEntry, content: Buffer): void {
  const { algorithm, hash } = entry;
  if (!algorithm && !hash) return;
  if (!algorithm || !hash) {
    throw new PackageError(`${META}: "${entry.name}" has ${algorithm ? 'Algorithm but no Hash' : 'Hash but no Algorithm'}`);
  }
  if (isPlaceholder(hash)) return;

  const nodeAlgorithm = ALGORITHMS[algorithm.toLowerCase().replace(/^sha-?/, 'sha-')];
  if (!nodeAlgorithm) {
    throw new PackageError(`${META}: "${entry.name}" uses unsupported hash algorithm "${algorithm}" (use SHA-256 or SHA-512)`);
  }
  if (!/^[0-9a-fA-F]+$/.test(hash)) {
    throw new PackageError(`${META}: the Hash of "${entry.name}" is not a hexadecimal digest: "${hash}"`);
  }
  const actual = createHash(nodeAlgorithm).update(content).digest('hex');
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
