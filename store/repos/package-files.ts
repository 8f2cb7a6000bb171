/**
 * The files of onboarded packages. vnf_package_files is their index (path,
 * size, sha256); the bytes are in the content store under
 * "<packageId>/files/<path>" (store/content). The small files the
 * product reads (BaseHOT templates, scripts, certificates) come as Buffers
 * up to a cap; anything else (an artifact download) as a stream. Never a
 * whole package.
 */
import { Readable } from 'node:stream';
import { and, eq, like } from 'drizzle-orm';
import { packageKeys, TooLarge, type ByteRange, type ContentRead } from '../content';
import { collect } from '../content/metered';
import { legacyPackageFile } from '../legacy-package-contents';
import type { Store } from '../store';
import { first } from './rows';

/** What one file read into memory may hold (a script, a template, a certificate). */
export const SMALL_FILE_BYTES = 64 * 1024 * 1024;

export interface PackageFileEntry {
  path: string;
  size: number;
  sha256: string;
}

/** The file's bytes, or undefined when the package has no such file; FileTooLarge past maxBytes. */
export async function packageFile(store: Store, packageId: string, path: string, maxBytes = SMALL_FILE_BYTES): Promise<Buffer | undefined> {
  const found = await packageFileStream(store, packageId, path);
  if (!found) return undefined;
  if (found.size > maxBytes) {
    found.stream.destroy();
    throw new FileTooLarge(packageId, path, maxBytes);
  }
  try {
    return await collect(found.stream, maxBytes);
  } catch (e) {
    throw e instanceof TooLarge ? new FileTooLarge(packageId, path, maxBytes) : e;
  }
}

/** The file (or a range of it) as a stream with the file's size, or undefined when the package has no such file. */
export async function packageFileStream(store: Store, packageId: string, path: string, range?: ByteRange): Promise<ContentRead | undefined> {
  if (!(await hasPackageFile(store, packageId, path))) return undefined;
  const found = await store.content.get(packageKeys.file(packageId, path), range);
  if (found) return found;
  // Not moved yet: an older version's row, its bytes still in the database (the API moves them at start); whole, whatever the range.
  const legacy = await legacyPackageFile(store, packageId, path);
  if (legacy && !range) return { size: legacy.size, stream: Readable.from(legacy.bytes, { objectMode: false }) };
  throw new Error(`file ${path} of VNF package ${packageId} is indexed but not in the ${store.content.kind} content store`);
}

export async function hasPackageFile(store: Store, packageId: string, path: string): Promise<boolean> {
  const row = await store.read(({ db, t }) => first(db.select({ path: t.vnfPackageFiles.path }).from(t.vnfPackageFiles)
    .where(and(eq(t.vnfPackageFiles.packageId, packageId), eq(t.vnfPackageFiles.path, path))).limit(1)));
  return row !== undefined;
}

/** Those of `paths` the package has, each at most maxBytes. */
export async function packageFiles(store: Store, packageId: string, paths: string[], maxBytes = SMALL_FILE_BYTES): Promise<{ path: string; content: Buffer }[]> {
  const out: { path: string; content: Buffer }[] = [];
  for (const path of paths) {
    const content = await packageFile(store, packageId, path, maxBytes);
    if (content) out.push({ path, content });
  }
  return out;
}

/** The BaseHOT/ templates and nested files, by path; together at most maxBytes. */
export async function baseHotFiles(store: Store, packageId: string, maxBytes = SMALL_FILE_BYTES): Promise<Record<string, Buffer>> {
  const rows = await store.read(({ db, t }) => db.select({ path: t.vnfPackageFiles.path }).from(t.vnfPackageFiles)
    .where(and(eq(t.vnfPackageFiles.packageId, packageId), like(t.vnfPackageFiles.path, 'BaseHOT/%'))));
  const files: Record<string, Buffer> = {};
  let left = maxBytes;
  for (const { path } of rows.filter((r) => r.path.startsWith('BaseHOT/'))) {
    const content = await packageFile(store, packageId, path, left);
    if (!content) continue;
    files[path] = content;
    left -= content.length;
  }
  return files;
}

/** The package's file index (path, size, sha256), by path. */
export function packageFileIndex(store: Store, packageId: string): Promise<PackageFileEntry[]> {
  return store.read(async ({ db, t }) => (await db.select({ path: t.vnfPackageFiles.path, size: t.vnfPackageFiles.size, sha256: t.vnfPackageFiles.sha256 })
    .from(t.vnfPackageFiles).where(eq(t.vnfPackageFiles.packageId, packageId)))
    .map((r) => ({ path: r.path, size: r.size ?? 0, sha256: r.sha256 ?? '' }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))); // code point order on both dialects
}

export class FileTooLarge extends Error {
  constructor(readonly packageId: string, readonly path: string, readonly maxBytes: number) {
    super(`file ${path} of VNF package ${packageId} is larger than the ${maxBytes} bytes it may hold in memory`);
  }
}
