/**
 * The content store (store/content) on each implementation: a
 * directory, and the database on SQLite and on a real PostgreSQL. Same
 * tests, same expectations: streamed puts and reads, byte ranges across
 * chunk boundaries, atomic replacement, failed puts that leave nothing,
 * the size cap, prefix deletion and keys that would leave the store.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { openStore, type Store } from '../../store';
import { insertChunk } from '../../store/repos/content';
import { CHUNK_BYTES } from '../../store/content/database';
import { TooLarge, type ContentStore } from '../../store/content';
import { startPostgres, type TestPostgres } from '../support/postgres';

const MiB = 1024 * 1024;
const key = (name: string) => `11111111-2222-3333-4444-555555555555/${name}`;

let pg: TestPostgres;
beforeAll(async () => { pg = await startPostgres(); });
afterAll(() => pg?.stop());

async function read(content: ContentStore, k: string, range?: { start: number; end: number }): Promise<Buffer | undefined> {
  const got = await content.get(k, range);
  if (!got) return undefined;
  const pieces: Buffer[] = [];
  for await (const piece of got.stream) pieces.push(piece);
  return Buffer.concat(pieces);
}

/** Pieces of `data` of uneven sizes, as a socket delivers them. */
async function* pieces(data: Buffer, step = 100_003): AsyncGenerator<Buffer> {
  for (let i = 0; i < data.length; i += step) yield data.subarray(i, i + step);
}

/** A body that yields `head`, then waits for release() before the rest (or fails with `error`). */
function held(head: Buffer, tail: Buffer, error?: Error) {
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  async function* body() {
    yield head;
    await gate;
    if (error) throw error;
    yield tail;
  }
  return { body: body(), release };
}

const CASES = [['directory', 'sqlite'], ['database', 'sqlite'], ['database', 'postgres']] as const;

describe.each(CASES)('the %s content store (product store on %s)', (kind, dialect) => {
  let dir: string;
  let db: Store;
  let content: ContentStore;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'content-store-'));
    db = await openStore({ dataDir: dir, databaseUrl: dialect === 'postgres' ? pg.newDatabase() : undefined, packageStore: kind, packageStoreDir: path.join(dir, 'content') });
    content = db.content;
    expect(content.kind).toBe(kind);
  });
  afterEach(async () => {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** What the store holds besides its objects: temporary files, chunks of no object. */
  async function leftovers(): Promise<number> {
    if (kind === 'directory') {
      const tmp = path.join(dir, 'content', '.tmp');
      return fs.existsSync(tmp) ? fs.readdirSync(tmp).length : 0;
    }
    const rows = await db.read(({ db: q, t }) => q.select({ n: sql<number>`count(*)` }).from(t.contentChunks)
      .where(sql`${t.contentChunks.objectId} NOT IN (SELECT object_id FROM content_objects)`));
    return Number(rows[0].n);
  }

  it('puts a stream and gives it back whole, in ranges across chunk boundaries, and as a small Buffer', async () => {
    const data = crypto.randomBytes(3 * MiB + 12345);
    const info = await content.put(key('big.bin'), pieces(data), { maxBytes: 4 * MiB });
    expect(info).toEqual({ size: data.length, sha256: crypto.createHash('sha256').update(data).digest('hex') });
    expect(await content.size(key('big.bin'))).toBe(data.length);
    expect((await read(content, key('big.bin')))!.equals(data)).toBe(true);
    const ranges = [[0, 10], [CHUNK_BYTES - 5, CHUNK_BYTES + 5], [CHUNK_BYTES, 2 * CHUNK_BYTES], [5, 3 * CHUNK_BYTES + 7], [data.length - 3, data.length], [7, 7]];
    for (const [start, end] of ranges) expect([start, (await read(content, key('big.bin'), { start, end }))!.equals(data.subarray(start, end))]).toEqual([start, true]);
    const ranged = (await content.get(key('big.bin'), { start: 0, end: 10 }))!;
    ranged.stream.destroy();
    expect(ranged.size).toBe(data.length);
    await expect(content.get(key('big.bin'), { start: 10, end: data.length + 1 })).rejects.toThrow(RangeError);

    await content.put(key('small.txt'), pieces(Buffer.from('hello')), { maxBytes: 100 });
    expect((await content.getBuffer(key('small.txt'), 5))?.toString()).toBe('hello');
    await expect(content.getBuffer(key('small.txt'), 4)).rejects.toBeInstanceOf(TooLarge);
    await content.put(key('empty'), pieces(Buffer.alloc(0)), { maxBytes: 0 });
    expect((await content.getBuffer(key('empty'), 0))?.length).toBe(0);
    expect(await content.get(key('missing'))).toBeUndefined();
    expect(await content.getBuffer(key('missing'), 10)).toBeUndefined();
    expect(await content.size(key('missing'))).toBeUndefined();
  });

  it('is atomic: while a put runs, readers see the old object (or none); then the new one whole', async () => {
    const old = Buffer.from('old content');
    await content.put(key('a'), pieces(old), { maxBytes: 10 * MiB });
    const next = crypto.randomBytes(2 * MiB);
    const replacing = held(next.subarray(0, 1.5 * MiB), next.subarray(1.5 * MiB));
    const creating = held(next.subarray(0, MiB), next.subarray(MiB));
    const puts = [content.put(key('a'), replacing.body, { maxBytes: 10 * MiB }), content.put(key('b'), creating.body, { maxBytes: 10 * MiB })];
    await new Promise((r) => setTimeout(r, 200)); // the first pieces are stored by now
    expect((await read(content, key('a')))!.equals(old)).toBe(true);
    expect(await content.get(key('b'))).toBeUndefined();
    replacing.release();
    creating.release();
    await Promise.all(puts);
    expect((await read(content, key('a')))!.equals(next)).toBe(true);
    expect((await read(content, key('b')))!.equals(next)).toBe(true);
    expect(await leftovers()).toBe(0); // the replaced object's chunks went with it
  });

  it('leaves nothing after a failed put, a put past the cap or a refused commit; an old object stays', async () => {
    const old = Buffer.from('kept');
    await content.put(key('a'), pieces(old), { maxBytes: 100 });
    const failing = held(crypto.randomBytes(MiB + 1), Buffer.alloc(10), new Error('the client went away'));
    const put = content.put(key('a'), failing.body, { maxBytes: 10 * MiB });
    failing.release();
    await expect(put).rejects.toThrow('the client went away');
    await expect(content.put(key('b'), pieces(crypto.randomBytes(2 * MiB + 1)), { maxBytes: 2 * MiB })).rejects.toBeInstanceOf(TooLarge);
    await expect(content.put(key('c'), pieces(Buffer.from('x')), { maxBytes: 10, beforeCommit: async () => { throw new Error('not CREATED'); } })).rejects.toThrow('not CREATED');
    expect((await read(content, key('a')))!.equals(old)).toBe(true);
    expect(await content.get(key('b'))).toBeUndefined();
    expect(await content.get(key('c'))).toBeUndefined();
    expect(await leftovers()).toBe(0);
  });

  it('deletes one key, or every key under a prefix (exactly: no wildcards, no case folding)', async () => {
    const put = (k: string) => content.put(k, pieces(Buffer.from(k)), { maxBytes: 1000 });
    const keys = ['p1/package.zip', 'p1/files/a.txt', 'p1/files/d/b.txt', 'p1x/files/a.txt', 'P1/files/a.txt', 'p_/files/a.txt', 'p%/files/a.txt', 'pp/files/a.txt'];
    for (const k of keys) await put(k);
    await content.delete('p1/package.zip');
    await content.delete('p1/never-there');
    expect(await content.get('p1/package.zip')).toBeUndefined();
    await content.deletePrefix('p1/files/');
    await content.deletePrefix('p_/');
    await content.deletePrefix('p%/');
    const left = [];
    for (const k of keys) if (await content.size(k) !== undefined) left.push(k);
    expect(left).toEqual(['p1x/files/a.txt', 'P1/files/a.txt', 'pp/files/a.txt']);
    await expect(content.deletePrefix('p1')).rejects.toThrow(/must end with/);
    expect(await leftovers()).toBe(0);
  });

  it('refuses keys that are not relative paths inside the store', async () => {
    const outside = path.join(dir, 'outside.txt');
    for (const bad of ['../outside.txt', '/etc/passwd', 'a/../../outside.txt', 'a//b', './a', 'a\\..\\b', '', 'a\0b', '.tmp/x', `a/${'x'.repeat(256)}`]) {
      await expect(content.put(bad, pieces(Buffer.from('x')), { maxBytes: 10 })).rejects.toThrow(/content key/);
      await expect(content.get(bad)).rejects.toThrow(/content key/);
      await expect(content.delete(bad)).rejects.toThrow(/content key/);
    }
    await expect(content.deletePrefix('../')).rejects.toThrow(/content key/);
    expect(fs.existsSync(outside)).toBe(false);
  });

  it('sweeps what a put that died with its process left behind', async () => {
    await content.put(key('live'), pieces(Buffer.from('live')), { maxBytes: 10 });
    if (kind === 'directory') {
      const tmp = path.join(dir, 'content', '.tmp');
      fs.writeFileSync(path.join(tmp, 'dead.part'), 'half');
      fs.utimesSync(path.join(tmp, 'dead.part'), new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
      fs.writeFileSync(path.join(tmp, 'running.part'), 'still being written');
    } else {
      await insertChunk(db, 'dead-put', 0, Buffer.from('half'));
    }
    expect(await content.sweepAbandoned(kind === 'directory' ? 60_000 : -1000)).toBe(1);
    expect(await leftovers()).toBe(kind === 'directory' ? 1 : 0); // the directory's running put stays
    expect((await content.getBuffer(key('live'), 10))?.toString()).toBe('live');
  });
});

test('the directory store maps keys to files under its directory', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'content-dir-'));
  try {
    const db = await openStore({ dataDir: dir, packageStore: 'directory', packageStoreDir: path.join(dir, 'packages') });
    await db.content.put('p/files/Definitions/x.yaml', pieces(Buffer.from('a: 1')), { maxBytes: 10 });
    expect(fs.readFileSync(path.join(dir, 'packages', 'p', 'files', 'Definitions', 'x.yaml'), 'utf8')).toBe('a: 1');
    expect((fs.statSync(path.join(dir, 'packages', 'p', 'files', 'Definitions', 'x.yaml')).mode & 0o777).toString(8)).toBe('600');
    await db.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
