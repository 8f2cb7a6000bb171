import AdmZip from 'adm-zip';
import { PackageError } from './package-error';
import { toPackagePath } from './package-path';

/**
 * Unpacks a package zip into memory, keyed by normalized package path.
 * Entry names are checked before anything else looks at them: an absolute
 * name or one with '..' segments (zip-slip) rejects the whole package rather
 * than being silently rewritten, because such a package is either broken or
 * hostile.
 */
export function unzipPackage(zip: Buffer): Record<string, Buffer> {
  let entries: AdmZip.IZipEntry[];
  try {
    entries = new AdmZip(zip).getEntries();
  } catch (err) {
    throw new PackageError(`The package is not a readable zip file (${errorText(err)})`);
  }

  const files: Record<string, Buffer> = {};
  for (const entry of entries) {
    const rawName = entry.entryName;
    if (hasUnsafeSegments(rawName)) {
      throw new PackageError(
        `Zip entry "${rawName}" is an absolute path or contains '..'; package entries must be relative paths inside the package`,
      );
    }
    if (entry.isDirectory) continue;
    const path = toPackagePath(rawName);
    if (path === undefined) throw new PackageError(`Zip entry "${rawName}" is not a valid file name`);
    if (path in files) throw new PackageError(`Zip entry "${rawName}" appears more than once in the package`);
    try {
      files[path] = entry.getData();
    } catch (err) {
      throw new PackageError(`Zip entry "${rawName}" cannot be extracted (${errorText(err)})`);
    }
  }
  return files;
}

function hasUnsafeSegments(name: string): boolean {
  const slashed = name.replace(/\\/g, '/');
  return (
    slashed.startsWith('/') ||
    /^[a-zA-Z]:/.test(slashed) ||
    slashed.includes('\0') ||
    slashed.split('/').includes('..')
  );
}

function errorText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/^ADM-ZIP:\s*/, '');
}
