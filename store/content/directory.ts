/**
 * The content store as files under one directory (PACKAGE_STORE_DIR): a key is
 * a relative path in it. A put streams into a temporary file in the store's
 * own .tmp/ folder (same file system), flushed to disk and renamed into place,
 * so a reader never sees half an object; a failed put removes its file.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { once } from 'node:events';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { collect, metered } from './metered';
import {
  checkKey, checkPrefix, checkRange, TooLarge, type ByteRange, type ContentInfo, type ContentRead, type ContentStore, type PutOptions,
} from './types';

const TMP = '.tmp';
/** Errors meaning "no object of that key" (a missing file, or a folder where a file was asked for). */
const ABSENT = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);
const isAbsent = (e: unknown) => ABSENT.has((e as NodeJS.ErrnoException).code ?? '');

export class DirectoryContentStore implements ContentStore {
  readonly kind = 'directory' as const;

  constructor(readonly dir: string) {}

  /** The file of a key; throws for a key that is not valid (checkKey), so no key names a path outside the directory. */
  pathOf(key: string): string {
    return path.join(this.dir, ...checkKey(key).split('/'));
  }

  async put(key: string, body: AsyncIterable<Buffer>, opts: PutOptions): Promise<ContentInfo> {
    const file = this.pathOf(key);
    await fsp.mkdir(path.join(this.dir, TMP), { recursive: true, mode: 0o700 });
    const temp = path.join(this.dir, TMP, `${crypto.randomUUID()}.part`);
    const info: ContentInfo = { size: 0, sha256: '' };
    // Opened before streaming: the file exists, and is closed (by its stream) before any removal below.
    const out = (await fsp.open(temp, 'wx', 0o600)).createWriteStream({ flush: true });
    try {
      try {
        await pipeline(Readable.from(metered(body, opts.maxBytes, info)), out);
      } finally {
        if (!out.closed) await once(out, 'close');
      }
      await opts.beforeCommit?.(info);
      await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      await fsp.rename(temp, file);
      return info;
    } finally {
      await fsp.rm(temp, { force: true });
    }
  }

  async get(key: string, range?: ByteRange): Promise<ContentRead | undefined> {
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(this.pathOf(key), 'r');
    } catch (e) {
      if (isAbsent(e)) return undefined;
      throw e;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) {
        await handle.close();
        return undefined; // a folder of other keys
      }
      const { size } = stat;
      const { start, end } = checkRange(range, size);
      if (start === end) {
        await handle.close();
        return { size, stream: Readable.from([]) };
      }
      return { size, stream: handle.createReadStream({ start, end: end - 1 }) }; // closes the handle when done
    } catch (e) {
      await handle.close();
      if (isAbsent(e)) return undefined; // opened a folder
      throw e;
    }
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
    try {
      const s = await fsp.stat(this.pathOf(key));
      return s.isFile() ? s.size : undefined;
    } catch (e) {
      if (isAbsent(e)) return undefined;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.pathOf(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    await fsp.rm(this.pathOf(checkPrefix(prefix).slice(0, -1)), { recursive: true, force: true });
  }

  async sweepAbandoned(olderThanMs: number): Promise<number> {
    const tmp = path.join(this.dir, TMP);
    const cutoff = Date.now() - olderThanMs;
    let removed = 0;
    for (const name of fs.existsSync(tmp) ? await fsp.readdir(tmp) : []) {
      const file = path.join(tmp, name);
      const stat = await fsp.stat(file).catch(() => undefined);
      if (stat && stat.mtimeMs < cutoff) {
        await fsp.rm(file, { force: true });
        removed++;
      }
    }
    return removed;
  }
}
