/**
 * The content store in the product's database (SQLite or PostgreSQL, through
 * the Store): an object is chunks of about 1 MiB in content_chunks under an
 * id of its own, and a content_objects row, written last, that gives the
 * key that id. Several hosts on one PostgreSQL share content through it
 * alone. Writes and reads go one chunk at a time, so neither holds more
 * than a chunk in memory; a range read takes only its bytes out of the
 * chunks it touches (substr in the database).
 */
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import type { SqlStore } from '../sql-store';
import {
  chunkSlice, deleteObject, deleteObjectsUnder, dropChunks, findObject, insertChunk, publishObject, sweepOrphanChunks, type ContentObjectRow,
} from '../repos/content';
import { collect, metered } from './metered';
import {
  checkKey, checkPrefix, checkRange, TooLarge, type ByteRange, type ContentInfo, type ContentRead, type ContentStore, type PutOptions,
} from './types';

export const CHUNK_BYTES = 1024 * 1024;
/**
 * Bytes per read: a quarter chunk. PostgreSQL sends bytea as hex text, which
 * node-postgres holds as a string twice the size before it becomes a Buffer;
 * smaller reads leave smaller garbage, and the reader's memory stays flat.
 */
const READ_BYTES = 256 * 1024;

export class DatabaseContentStore implements ContentStore {
  readonly kind = 'database' as const;

  constructor(private readonly db: SqlStore, private readonly chunkBytes = CHUNK_BYTES) {}

  async put(key: string, body: AsyncIterable<Buffer>, opts: PutOptions): Promise<ContentInfo> {
    checkKey(key);
    const objectId = crypto.randomUUID();
    const info: ContentInfo = { size: 0, sha256: '' };
    try {
      let seq = 0;
      for await (const chunk of rechunk(metered(body, opts.maxBytes, info), this.chunkBytes)) await insertChunk(this.db, objectId, seq++, chunk);
      await opts.beforeCommit?.(info);
      await publishObject(this.db, { key, objectId, size: info.size, chunkSize: this.chunkBytes, sha256: info.sha256, createdAt: new Date().toISOString() });
      return info;
    } catch (e) {
      // Nothing names these chunks; should this fail too, sweepAbandoned takes them later.
      await dropChunks(this.db, objectId).catch(() => undefined);
      throw e;
    }
  }

  async get(key: string, range?: ByteRange): Promise<ContentRead | undefined> {
    const object = await findObject(this.db, checkKey(key));
    if (!object) return undefined;
    const { start, end } = checkRange(range, object.size);
    return { size: object.size, stream: Readable.from(this.chunksOf(object, start, end), { objectMode: false }) };
  }

  async getBuffer(key: string, maxBytes: number): Promise<Buffer | undefined> {
    const found = await this.get(key);
    if (!found) return undefined;
    if (found.size > maxBytes) {
      found.stream.destroy();
      throw new TooLarge(maxBytes);
    }
    return collect(found.stream, maxBytes);
  }

  async size(key: string): Promise<number | undefined> {
    return (await findObject(this.db, checkKey(key)))?.size;
  }

  async delete(key: string): Promise<void> {
    await deleteObject(this.db, checkKey(key));
  }

  async deletePrefix(prefix: string): Promise<void> {
    await deleteObjectsUnder(this.db, checkPrefix(prefix));
  }

  sweepAbandoned(olderThanMs: number): Promise<number> {
    return sweepOrphanChunks(this.db, new Date(Date.now() - olderThanMs).toISOString());
  }

  /** Bytes [start, end) of the object, chunk by chunk. A chunk gone (the key was replaced mid-read) is an error, not a short read. */
  private async *chunksOf(object: ContentObjectRow, start: number, end: number): AsyncGenerator<Buffer> {
    const { chunkSize } = object;
    for (let seq = Math.floor(start / chunkSize); seq * chunkSize < end; seq++) {
      const last = Math.min(end - seq * chunkSize, chunkSize);
      for (let from = Math.max(start - seq * chunkSize, 0); from < last; from += READ_BYTES) {
        const length = Math.min(READ_BYTES, last - from);
        const bytes = await chunkSlice(this.db, object.objectId, seq, from, length);
        if (!bytes || bytes.length !== length) throw new Error(`content "${object.key}" changed or is damaged: chunk ${seq} has ${bytes?.length ?? 'no'} bytes at ${from}, ${length} expected`);
        yield bytes;
      }
    }
  }
}

/** Regroups a stream into pieces of exactly `size` bytes (the last may be shorter), holding at most one piece. */
async function* rechunk(body: AsyncIterable<Buffer>, size: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (let piece of body) {
    while (pendingBytes + piece.length >= size) {
      const take = size - pendingBytes;
      yield Buffer.concat([...pending, piece.subarray(0, take)], size);
      piece = piece.subarray(take);
      pending = [];
      pendingBytes = 0;
    }
    if (piece.length) {
      pending.push(Buffer.from(piece)); // a copy: the source may reuse its buffer
      pendingBytes += piece.length;
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending, pendingBytes);
}
