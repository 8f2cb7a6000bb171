import { PackageError } from './package-error';
import { isUrl, resolveFrom, toPackagePath } from './package-path';

/**
 * Resolves an artifact `file:` written in a VNFD file to a package path.
 * Tacker's samples use both conventions: "../Scripts/x.py" (relative to the
 * VNFD file, as TOSCA says) and "Scripts/x.py" (relative to the package
 * root). The file-relative reading wins when both exist. A URL is an
 * external artifact and has no package path (returns undefined).
 */
export function resolveArtifactFile(
  files: Readonly<Record<string, unknown>>,
  vnfdFile: string,
  file: string,
  where: string,
): string | undefined {
  if (isUrl(file)) return undefined;
  const candidates = [resolveFrom(vnfdFile, file), toPackagePath(file)]
    .filter((p): p is string => p !== undefined);
  const found = candidates.find((p) => files[p] !== undefined);
  if (found !== undefined) return found;
  if (candidates.length === 0) {
    throw new PackageError(`${where}: artifact file "${file}" is outside the package`);
  }
  throw new PackageError(
    `${where}: artifact file "${file}" is not in the package (looked for ${[...new Set(candidates)].join(' and ')})`,
  );
}
