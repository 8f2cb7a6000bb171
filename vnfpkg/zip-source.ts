/**
 * A zip in the content store, opened for random access (yauzl over the
 * store's ranged reads): the central directory and each entry are read
 * where they are, never the whole zip. Small reads (yauzl's headers) are
 * served from one window of WINDOW_BYTES, fetched at once: reading the
 * central directory, or the headers and data of consecutive small entries,
 * costs one store read per window, not one per header.
 */
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import type { ContentStore } from '../store/content/types';
import { collect } from '../store/content/metered';
import { PackageError } from './package-error';

const WINDOW_BYTES = 128 * 1024;

/** A failure of the content store under the zip (not of the zip): onboarding retries it. */
export class ZipSourceError extends Error {
  constructor(readonly cause: unknown) {
    super(`reading the package zip from the content store failed: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

class ContentReader extends yauzl.RandomAccessReader {
  private window?: { start: number; bytes: Buffer };

  constructor(private readonly content: ContentStore, private readonly key: string, private readonly size: number) {
    super();
  }

  /** Bytes [start, end) straight from the store, as a stream (yauzl streams entry data through this). */
  _readStreamForRange(start: number, end: number): Readable {
    const cached = this.fromWindow(start, end);
    if (cached) return Readable.from([cached]);
    const out = new PassThrough();
    this.range(start, end)
      .then((stream) => pipeline(stream, out))
      .catch((e: unknown) => out.destroy(new ZipSourceError(e)));
    return out;
  }

  /** yauzl's small reads (headers, the central directory) go through the window. */
  read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null, bytesRead?: number) => void): void {
    this.readSmall(position, length)
      .then((bytes) => { bytes.copy(buffer, offset); callback(null, bytes.length); })
      .catch((e: unknown) => callback(e instanceof ZipSourceError ? e : new ZipSourceError(e)));
  }

  private async readSmall(position: number, length: number): Promise<Buffer> {
    const cached = this.fromWindow(position, position + length);
    if (cached) return cached;
    if (length > WINDOW_BYTES) return collect(await this.range(position, position + length), length);
    const end = Math.min(this.size, position + WINDOW_BYTES);
    this.window = { start: position, bytes: await collect(await this.range(position, end), end - position) };
    return this.fromWindow(position, position + length) ?? Buffer.alloc(0);
  }

  private fromWindow(start: number, end: number): Buffer | undefined {
    const w = this.window;
    if (!w || start < w.start || end > w.start + w.bytes.length) return undefined;
    return w.bytes.subarray(start - w.start, end - w.start);
  }

  private async range(start: number, end: number): Promise<Readable> {
    const found = await this.content.get(this.key, { start, end });
    if (!found) throw new Error(`${this.key} is gone`);
    return found.stream;
  }
}

/**
 * Opens the zip stored under `key`: its central directory is found and its
 * entry count known, no entry read yet (readEntry, lazily). Names stay raw
 * (decodeStrings off) and sizes unchecked by yauzl: zip-entries.ts checks
 * both itself, with the messages the operator sees.
 */
export async function openStoredZip(content: ContentStore, key: string): Promise<yauzl.ZipFile | undefined> {
  const size = await content.size(key);
  if (size === undefined) return undefined;
  const reader = new ContentReader(content, key, size);
  return yauzl.fromRandomAccessReaderPromise(reader, size, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: false, strictFileNames: false })
    .catch((e: unknown) => { throw unreadable(e); });
}

/** A zip yauzl cannot read (no end record, a damaged directory) is the package's fault; a store failure is not. */
export function unreadable(err: unknown): Error {
  if (err instanceof PackageError || err instanceof ZipSourceError) return err;
  return new PackageError(`The package is not a readable zip file (${err instanceof Error ? err.message : String(err)})`);
}
