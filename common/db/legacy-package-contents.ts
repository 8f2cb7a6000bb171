/**
 * Uploaded zips were BLOBs in the database before migration 0004 renamed the
 * table to legacy_package_contents (SQLite only: PostgreSQL stores start
 * after it). The API empties it into the package store at start: one row at
 * a time (each may be up to 1 GB), a row deleted only once its file is in
 * place, then the table is dropped.
 */
import { sql } from 'drizzle-orm';
import type { Store } from './store';

export async function drainLegacyPackageContents(store: Store, write: (packageId: string, zip: Buffer) => void): Promise<number> {
  if (store.dialect !== 'sqlite') return 0;
  const ids = await store.read(async ({ db }) => {
    const exists = db.get(sql`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'legacy_package_contents'`);
    return exists ? db.all<{ id: string }>(sql`SELECT package_id AS id FROM legacy_package_contents`) : undefined;
  });
  if (!ids) return 0;
  for (const { id } of ids) {
    const row = await store.read(async ({ db }) => db.get<{ zip: Buffer } | undefined>(sql`SELECT zip FROM legacy_package_contents WHERE package_id = ${id}`));
    if (row) write(id, row.zip);
    await store.read(async ({ db }) => { db.run(sql`DELETE FROM legacy_package_contents WHERE package_id = ${id}`); });
  }
  await store.read(async ({ db }) => { db.run(sql`DROP TABLE legacy_package_contents`); });
  return ids.length;
}
