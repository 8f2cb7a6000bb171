/**
 * The database content store's tables (content_objects, content_chunks),
 * for store/content/database.ts. Chunks are written first, each on
 * its own, under a fresh object id; the object row that names them is
 * written last, in one transaction with the removal of the chunks it
 * replaces.
 */
import { and, eq, inArray, lt, notInArray, sql } from 'drizzle-orm';
import type { SqlStore } from '../sql-store';
import { first } from './rows';

export interface ContentObjectRow {
  key: string;
  objectId: string;
  size: number;
  chunkSize: number;
  sha256: string;
  createdAt: string;
}

export function insertChunk(store: SqlStore, objectId: string, seq: number, data: Buffer): Promise<void> {
  return store.read(async ({ db, t }) => {
    await db.insert(t.contentChunks).values({ objectId, seq, data, writtenAt: new Date().toISOString() });
  });
}

/** Makes `row` the object of its key; the chunks of the object it replaces go in the same transaction. */
export function publishObject(store: SqlStore, row: ContentObjectRow): Promise<void> {
  return store.tx(async ({ db, t }) => {
    const old = await first(db.select({ objectId: t.contentObjects.objectId }).from(t.contentObjects).where(eq(t.contentObjects.key, row.key)).limit(1));
    const { objectId, size, chunkSize, sha256, createdAt } = row;
    await db.insert(t.contentObjects).values(row).onConflictDoUpdate({ target: t.contentObjects.key, set: { objectId, size, chunkSize, sha256, createdAt } });
    if (old && old.objectId !== objectId) await db.delete(t.contentChunks).where(eq(t.contentChunks.objectId, old.objectId));
  });
}

export function findObject(store: SqlStore, key: string): Promise<ContentObjectRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.contentObjects).where(eq(t.contentObjects.key, key)).limit(1)));
}

/** `length` bytes of one chunk from byte `offset` (0-based), read in the database; undefined when the chunk is gone. */
export async function chunkSlice(store: SqlStore, objectId: string, seq: number, offset: number, length: number): Promise<Buffer | undefined> {
  const row = await store.read(({ db, t }) => first(db.select({ data: sql<Buffer>`substr(${t.contentChunks.data}, ${offset + 1}, ${length})` })
    .from(t.contentChunks).where(and(eq(t.contentChunks.objectId, objectId), eq(t.contentChunks.seq, seq))).limit(1)));
  return row?.data;
}

/** The chunks of a put that did not commit. */
export function dropChunks(store: SqlStore, objectId: string): Promise<void> {
  return store.read(async ({ db, t }) => { await db.delete(t.contentChunks).where(eq(t.contentChunks.objectId, objectId)); });
}

export function deleteObject(store: SqlStore, key: string): Promise<void> {
  return store.tx(async ({ db, t }) => {
    const gone = await db.delete(t.contentObjects).where(eq(t.contentObjects.key, key)).returning({ objectId: t.contentObjects.objectId });
    if (gone.length) await db.delete(t.contentChunks).where(inArray(t.contentChunks.objectId, gone.map((g) => g.objectId)));
  });
}

/** Every object whose key starts with `prefix` (compared exactly: no LIKE wildcards, no case folding). */
export function deleteObjectsUnder(store: SqlStore, prefix: string): Promise<void> {
  return store.tx(async ({ db, t }) => {
    const under = sql`substr(${t.contentObjects.key}, 1, ${prefix.length}) = ${prefix}`;
    const ids = db.select({ objectId: t.contentObjects.objectId }).from(t.contentObjects).where(under);
    await db.delete(t.contentChunks).where(inArray(t.contentChunks.objectId, ids));
    await db.delete(t.contentObjects).where(under);
  });
}

/** Chunks no object names, written before `cutoff` (ISO time): puts that died with their process. Returns how many. */
export function sweepOrphanChunks(store: SqlStore, cutoff: string): Promise<number> {
  return store.read(async ({ db, t }) => (await db.delete(t.contentChunks).where(and(
    lt(t.contentChunks.writtenAt, cutoff),
    notInArray(t.contentChunks.objectId, db.select({ objectId: t.contentObjects.objectId }).from(t.contentObjects)),
  )).returning({ seq: t.contentChunks.seq })).length);
}
