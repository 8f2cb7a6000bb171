/**
 * Package content (uploaded zips, the files of onboarded packages) lives in a
 * content store that every API and worker host can reach: the product's
 * database (chunks, database.ts) or a directory (directory.ts). Objects are
 * named by keys ("<packageId>/package.zip", "<packageId>/files/<path>"),
 * written from a stream and read back as one, never whole in memory.
 */
import type { Readable } from 'node:stream';
import type { ContentStoreKind } from '../../common/settings/content-store';

export { CONTENT_STORE_KINDS, type ContentStoreKind } from '../../common/settings/content-store';

/** What a put wrote. */
export interface ContentInfo {
  size: number;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
}

export interface PutOptions {
  /** More bytes than this: TooLarge, and nothing is stored. */
  maxBytes: number;
  /**
   * Runs once every byte is stored, just before the object becomes visible;
   * throwing abandons the put (nothing stored, the error goes to the caller).
   */
  beforeCommit?: (info: ContentInfo) => Promise<void>;
}

/** Bytes [start, end) of an object. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface ContentRead {
  /** Size of the whole object (not of the range). */
  size: number;
  stream: Readable;
}

export interface ContentStore {
  readonly kind: ContentStoreKind;
  /**
   * Streams `body` in as `key` (replacing any object of that key). Atomic: a
   * reader sees the old object or the new one, never part of it, and a failed
   * put leaves nothing. `body` is consumed, and a Readable destroyed on failure:
   * an HTTP request goes through a PassThrough (api/upload-body.ts).
   */
  put(key: string, body: AsyncIterable<Buffer>, opts: PutOptions): Promise<ContentInfo>;
  /** The object's bytes (or a range of them) as a stream; undefined when there is no such object. */
  get(key: string, range?: ByteRange): Promise<ContentRead | undefined>;
  /** A small object whole; TooLarge when it has more than maxBytes. */
  getBuffer(key: string, maxBytes: number): Promise<Buffer | undefined>;
  size(key: string): Promise<number | undefined>;
  delete(key: string): Promise<void>;
  /** Every object whose key starts with `prefix`, which names a folder ("<packageId>/"). */
  deletePrefix(prefix: string): Promise<void>;
  /** Leftovers of puts that died with their process (a crash mid-upload), older than `olderThanMs`; returns how many. */
  sweepAbandoned(olderThanMs: number): Promise<number>;
}

export class TooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`more than ${maxBytes} bytes`);
  }
}

/** Longest key: PostgreSQL indexes text keys up to about 2.7 kB, and directory paths stay well under PATH_MAX. */
const MAX_KEY_BYTES = 1024;
/** Longest segment: a file name on every common file system. */
const MAX_SEGMENT_BYTES = 255;

/**
 * Why `key` is not a valid key, or undefined when it is. Keys are relative,
 * '/'-separated, without empty, '.' or '..' segments, NUL or backslash, so a
 * key never names a path outside a directory store; a first segment starting
 * with '.' is the store's own (temporary files).
 */
export function keyProblem(key: string): string | undefined {
  if (key === '' || Buffer.byteLength(key) > MAX_KEY_BYTES) return `must have 1 to ${MAX_KEY_BYTES} bytes`;
  if (/[\0\\]/.test(key)) return 'must not contain NUL or backslash';
  const segments = key.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return "must be a relative path without empty, '.' or '..' segments";
  if (segments.some((s) => Buffer.byteLength(s) > MAX_SEGMENT_BYTES)) return `must not have a segment longer than ${MAX_SEGMENT_BYTES} bytes`;
  if (segments[0].startsWith('.')) return "must not start with '.'";
  return undefined;
}

export function checkKey(key: string): string {
  const problem = keyProblem(key);
  if (problem) throw new Error(`content key "${key}" ${problem}`);
  return key;
}

/** A folder prefix: a valid key followed by '/'. */
export function checkPrefix(prefix: string): string {
  if (!prefix.endsWith('/')) throw new Error(`content prefix "${prefix}" must end with '/'`);
  checkKey(prefix.slice(0, -1));
  return prefix;
}

export function checkRange(range: ByteRange | undefined, size: number): ByteRange {
  const r = range ?? { start: 0, end: size };
  if (!(Number.isSafeInteger(r.start) && Number.isSafeInteger(r.end) && r.start >= 0 && r.start <= r.end && r.end <= size)) {
    throw new RangeError(`byte range [${r.start}, ${r.end}) is not within the object's ${size} bytes`);
  }
  return r;
}
