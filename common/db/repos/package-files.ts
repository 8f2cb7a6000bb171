/**
 * The files of onboarded packages (vnf_package_files): read one at a time,
 * or a named set, never a whole package (artifacts may be large).
 */
import { and, eq, inArray, like } from 'drizzle-orm';
import type { Store } from '../store';
import { first } from './rows';

export async function packageFile(store: Store, packageId: string, path: string): Promise<Buffer | undefined> {
  const row = await store.read(({ db, t }) => first(db.select({ content: t.vnfPackageFiles.content }).from(t.vnfPackageFiles)
    .where(and(eq(t.vnfPackageFiles.packageId, packageId), eq(t.vnfPackageFiles.path, path))).limit(1)));
  return row?.content;
}

export async function hasPackageFile(store: Store, packageId: string, path: string): Promise<boolean> {
  const row = await store.read(({ db, t }) => first(db.select({ path: t.vnfPackageFiles.path }).from(t.vnfPackageFiles)
    .where(and(eq(t.vnfPackageFiles.packageId, packageId), eq(t.vnfPackageFiles.path, path))).limit(1)));
  return row !== undefined;
}

/** Those of `paths` the package has. */
export function packageFiles(store: Store, packageId: string, paths: string[]): Promise<{ path: string; content: Buffer }[]> {
  if (paths.length === 0) return Promise.resolve([]);
  return store.read(({ db, t }) => db.select({ path: t.vnfPackageFiles.path, content: t.vnfPackageFiles.content }).from(t.vnfPackageFiles)
    .where(and(eq(t.vnfPackageFiles.packageId, packageId), inArray(t.vnfPackageFiles.path, paths))));
}

/** The BaseHOT/ templates and nested files, by path. */
export async function baseHotFiles(store: Store, packageId: string): Promise<Record<string, Buffer>> {
  const rows = await store.read(({ db, t }) => db.select({ path: t.vnfPackageFiles.path, content: t.vnfPackageFiles.content }).from(t.vnfPackageFiles)
    .where(and(eq(t.vnfPackageFiles.packageId, packageId), like(t.vnfPackageFiles.path, 'BaseHOT/%'))));
  return Object.fromEntries(rows.filter((r) => r.path.startsWith('BaseHOT/')).map((r) => [r.path, r.content]));
}
