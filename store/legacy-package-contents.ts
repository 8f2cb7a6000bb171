/**
 * Package bytes that older versions kept in the database, moved into the
 * content store by the API at start (api/package-reconcile.ts):
 * - uploaded zips, BLOBs of the pre-0004 table that migration 0004 renamed
 *   legacy_package_contents (SQLite only: PostgreSQL stores start after it);
 *   the table is dropped once empty;
 * - the files of onboarded packages, the `content` column of
 *   vnf_package_files before migration 0007 (SQLite) / pg 0003; the column
 *   stays, NULL, and the row gets its size and sha256.
 * A BLOB may be up to a gigabyte: it is read out 1 MiB at a time (substr in
 * the database), and a row is cleared only once its object is in the store.
 */
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { ContentInfo } from './content/types';
import type { SqlStore, Tables } from './sql-store';

const SLICE_BYTES = 1024 * 1024;

/** Stores one legacy BLOB (given as a stream of its bytes) in the content store. */
type Put = (packageId: string, body: AsyncIterable<Buffer>) => Promise<ContentInfo>;

/** A BLOB's bytes, SLICE_BYTES at a time, from its length and a slice reader (1-based, as SQL's substr). */
async function* slices(length: () => Promise<number>, slice: (from: number, count: number) => Promise<Buffer>): AsyncGenerator<Buffer> {
  const size = Number(await length());
  for (let at = 0; at < size; at += SLICE_BYTES) yield slice(at + 1, SLICE_BYTES);
}

export async function drainLegacyPackageContents(store: SqlStore, put: Put): Promise<number> {
  if (store.dialect !== 'sqlite') return 0;
  const ids = await store.read(async ({ db }) => {
    const exists = db.get(sql`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'legacy_package_contents'`);
    return exists ? db.all<{ id: string }>(sql`SELECT package_id AS id FROM legacy_package_contents`) : undefined;
  });
  if (!ids) return 0;
  for (const { id } of ids) {
    await put(id, slices(
      () => store.read(async ({ db }) => db.get<{ n: number }>(sql`SELECT length(zip) AS n FROM legacy_package_contents WHERE package_id = ${id}`)?.n ?? 0),
      (from, count) => store.read(async ({ db }) => db.get<{ piece: Buffer }>(sql`SELECT substr(zip, ${from}, ${count}) AS piece FROM legacy_package_contents WHERE package_id = ${id}`)!.piece),
    ));
    await store.read(async ({ db }) => { db.run(sql`DELETE FROM legacy_package_contents WHERE package_id = ${id}`); });
  }
  await store.read(async ({ db }) => { db.run(sql`DROP TABLE legacy_package_contents`); });
  return ids.length;
}

/** The bytes of a package file still in vnf_package_files.content, or undefined when the row has none (moved, or never there). */
export async function legacyPackageFile(store: SqlStore, packageId: string, path: string): Promise<{ size: number; bytes: AsyncGenerator<Buffer> } | undefined> {
  const size = await legacySize(store, packageId, path);
  return size === undefined ? undefined : { size, bytes: legacyFileSlices(store, packageId, path) };
}

async function legacySize(store: SqlStore, packageId: string, path: string): Promise<number | undefined> {
  const rows = await store.read(({ db, t }) => db.select({ n: sql<number>`length(${t.vnfPackageFiles.legacyContent})` }).from(t.vnfPackageFiles)
    .where(and(eq(t.vnfPackageFiles.packageId, packageId), eq(t.vnfPackageFiles.path, path), isNotNull(t.vnfPackageFiles.legacyContent))).limit(1));
  return rows.length ? Number(rows[0].n) : undefined;
}

function legacyFileSlices(store: SqlStore, packageId: string, path: string): AsyncGenerator<Buffer> {
  const row = (t: Tables) => and(eq(t.vnfPackageFiles.packageId, packageId), eq(t.vnfPackageFiles.path, path));
  return slices(
    async () => (await legacySize(store, packageId, path)) ?? 0,
    async (from, count) => (await store.read(({ db, t }) => db.select({ piece: sql<Buffer>`substr(${t.vnfPackageFiles.legacyContent}, ${from}, ${count})` })
      .from(t.vnfPackageFiles).where(row(t)).limit(1)))[0].piece,
  );
}

/** Moves every vnf_package_files row that still has its bytes; `put` gets "<packageId>/<path>"-style ids as (packageId, path). */
export async function drainLegacyPackageFiles(store: SqlStore, put: (packageId: string, path: string, body: AsyncIterable<Buffer>) => Promise<ContentInfo>): Promise<number> {
  const rows = await store.read(({ db, t }) => db.select({ packageId: t.vnfPackageFiles.packageId, path: t.vnfPackageFiles.path })
    .from(t.vnfPackageFiles).where(isNotNull(t.vnfPackageFiles.legacyContent)));
  for (const { packageId, path } of rows) {
    const info = await put(packageId, path, legacyFileSlices(store, packageId, path));
    await store.read(async ({ db, t }) => {
      await db.update(t.vnfPackageFiles).set({ legacyContent: null, size: info.size, sha256: info.sha256 })
        .where(and(eq(t.vnfPackageFiles.packageId, packageId), eq(t.vnfPackageFiles.path, path)));
    });
  }
  return rows.length;
}
