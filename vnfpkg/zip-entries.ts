/**
 * A package zip's entries, read from its central directory and checked
 * before any entry's data is touched: the entry count (before an entry is
 * built), then every name. An absolute name or one with '..' segments
 * (zip-slip) rejects the whole package rather than being silently
 * rewritten, because such a package is either broken or hostile.
 */
import yauzl from 'yauzl';
import { PackageError } from './package-error';
import { toPackagePath } from './package-path';
import { keyProblem, packageKeys } from '../store/content';
import type { PackageLimits } from '../common/settings/package-limits';
import { unreadable } from './zip-source';

export interface ZipFileEntry {
  /** Normalized package path ("Definitions/x.yaml"). */
  path: string;
  /** The name as the zip has it, for messages. */
  rawName: string;
  entry: yauzl.Entry;
}

/** Files go to the content store as "<packageId>/files/<path>": a name no such key can hold is refused here. */
const SOME_PACKAGE_ID = '00000000-0000-0000-0000-000000000000';

/** The file entries (directories are checked, then left out), in the zip's order. */
export async function listEntries(zip: yauzl.ZipFile, limits: Pick<PackageLimits, 'entries'>): Promise<ZipFileEntry[]> {
  // The end record's count, before yauzl reads (and we build) a single entry.
  if (zip.entryCount > limits.entries) throw tooManyEntries(zip.entryCount, limits.entries);
  const files: ZipFileEntry[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < zip.entryCount; i++) {
    const entry = await nextEntry(zip);
    const rawName = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, false);
    if (hasUnsafeSegments(rawName)) {
      throw new PackageError(
        `Zip entry "${rawName}" is an absolute path or contains '..'; package entries must be relative paths inside the package`,
      );
    }
    if (rawName.replace(/\\/g, '/').endsWith('/')) continue; // a directory
    const path = toPackagePath(rawName);
    if (path === undefined || keyProblem(packageKeys.file(SOME_PACKAGE_ID, path))) throw new PackageError(`Zip entry "${rawName}" is not a valid file name`);
    if (seen.has(path)) throw new PackageError(`Zip entry "${rawName}" appears more than once in the package`);
    seen.add(path);
    files.push({ path, rawName, entry });
  }
  // A file cannot also be a folder of other files (Files/a and Files/a/b): no file system could hold both.
  for (const f of files) {
    const parts = f.path.split('/');
    for (let n = 1; n < parts.length; n++) {
      const folder = parts.slice(0, n).join('/');
      if (seen.has(folder)) throw new PackageError(`Zip entry "${f.rawName}" is inside "${folder}", which is a file of the package too`);
    }
  }
  return files;
}

/** The next central directory record, as a promise (yauzl emits it). */
function nextEntry(zip: yauzl.ZipFile): Promise<yauzl.Entry> {
  return new Promise((resolve, reject) => {
    const onEntry = (entry: yauzl.Entry) => { zip.off('error', onError); resolve(entry); };
    const onError = (err: unknown) => { zip.off('entry', onEntry); reject(unreadable(err)); };
    zip.once('entry', onEntry).once('error', onError);
    zip.readEntry();
  });
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
