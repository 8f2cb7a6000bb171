import AdmZip from 'adm-zip';
import zlib from 'node:zlib';
import { PACKAGE_LIMIT_DEFAULTS, RATIO_FREE_BYTES, type PackageLimits } from './package-limits';
import { PackageError } from './package-error';
import { toPackagePath } from './package-path';

const STORED = 0;
const DEFLATED = 8;

/**
 * Unpacks a package zip into memory, keyed by normalized package path.
 * Entry names are checked before anything else looks at them: an absolute
 * name or one with '..' segments (zip-slip) rejects the whole package rather
 * than being silently rewritten, because such a package is either broken or
 * hostile.
 *
 * Sizes are enforced while inflating (zlib's maxOutputLength), on the bytes
 * actually produced: the entry count before the entries are read, each
 * entry's ratio, and the running total. Declared sizes are only checked
 * for consistency afterwards.
 */
export function unzipPackage(zip: Buffer, limits: Pick<PackageLimits, 'unzippedBytes' | 'ratio' | 'entries'> = PACKAGE_LIMIT_DEFAULTS): Record<string, Buffer> {
  let entries: AdmZip.IZipEntry[];
  try {
    const archive = new AdmZip(zip, { readEntries: false });
    // The central directory's count, before adm-zip builds an object per entry.
    const declared = archive.getEntryCount();
    if (declared > limits.entries) throw tooManyEntries(declared, limits.entries);
    entries = archive.getEntries();
  } catch (err) {
    if (err instanceof PackageError) throw err;
    throw new PackageError(`The package is not a readable zip file (${errorText(err)})`);
  }
  if (entries.length > limits.entries) throw tooManyEntries(entries.length, limits.entries);

  const files: Record<string, Buffer> = {};
  let total = 0;
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
    const data = inflateEntry(entry, limits, limits.unzippedBytes - total);
    total += data.length;
    files[path] = data;
  }
  return files;
}

/** One entry's bytes, never more than its ratio allows or the total has left. */
function inflateEntry(entry: AdmZip.IZipEntry, limits: Pick<PackageLimits, 'unzippedBytes' | 'ratio'>, totalLeft: number): Buffer {
  const name = entry.entryName;
  const { method, encrypted, crc, size } = entry.header;
  if (encrypted) throw new PackageError(`Zip entry "${name}" is encrypted`);
  let compressed: Buffer;
  try {
    compressed = entry.getCompressedData();
  } catch (err) {
    throw new PackageError(`Zip entry "${name}" cannot be extracted (${errorText(err)})`);
  }
  const byRatio = Math.max(limits.ratio * compressed.length, RATIO_FREE_BYTES);
  const cap = Math.min(byRatio, totalLeft);
  const overCap = () => (cap === totalLeft
    ? new PackageError(`The package inflates to more than ${limits.unzippedBytes} bytes (PACKAGE_MAX_UNZIPPED_BYTES); stopped at zip entry "${name}"`)
    : new PackageError(`Zip entry "${name}" inflates more than ${limits.ratio} times its compressed size of ${compressed.length} bytes (PACKAGE_MAX_RATIO): a zip bomb?`));
  let data: Buffer;
  if (method === STORED) {
    if (compressed.length > cap) throw overCap();
    data = Buffer.from(compressed);
  } else if (method === DEFLATED) {
    if (cap <= 0) throw overCap();
    try {
      data = zlib.inflateRawSync(compressed, { maxOutputLength: cap });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw overCap();
      throw new PackageError(`Zip entry "${name}" cannot be extracted (${errorText(err)})`);
    }
  } else {
    throw new PackageError(`Zip entry "${name}" uses compression method ${method}; only stored and deflated entries are supported`);
  }
  if (data.length !== size || zlib.crc32(data) !== crc) {
    throw new PackageError(`Zip entry "${name}" cannot be extracted (its size or CRC does not match the zip's directory)`);
  }
  return data;
}

function tooManyEntries(count: number, max: number): PackageError {
  return new PackageError(`The package has ${count} zip entries, more than ${max} (PACKAGE_MAX_ENTRIES)`);
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
