/**
 * Streams zip entries out, inflating as they go. Sizes are enforced on the
 * bytes actually produced, as they are produced: each entry's ratio and the
 * running total of the package. The declared size and CRC-32 are checked
 * at the end of each entry, before its consumer (a content store put) may
 * commit it; the hashes TOSCA.meta lists are computed on the way.
 */
import { createHash, type Hash } from 'node:crypto';
import zlib from 'node:zlib';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type yauzl from 'yauzl';
import { PackageError } from './package-error';
import { RATIO_FREE_BYTES } from './package-limits';
import { type PackageLimits } from '../common/settings/package-limits';
import type { ZipFileEntry } from './zip-entries';
import { ZipSourceError } from './zip-source';

const STORED = 0;
const DEFLATED = 8;

export interface ExtractOptions {
  /** node:crypto hash names to compute ("sha256" always is). */
  algorithms?: string[];
  /** Keep the bytes in memory too, at most this many (over it: `tooBig`). */
  keep?: { maxBytes: number; tooBig: () => PackageError };
}

export interface Extracted {
  size: number;
  /** Hex digests by node:crypto name. */
  hashes: Record<string, string>;
  kept?: Buffer;
}

/** What consumes an entry's bytes (a content store put); it gets at most `maxBytes`. */
export type EntrySink = (bytes: AsyncIterable<Buffer>, maxBytes: number) => Promise<unknown>;

export class ZipExtractor {
  /** Bytes produced so far by every entry extracted. */
  private total = 0;

  constructor(private readonly zip: yauzl.ZipFile, private readonly limits: Pick<PackageLimits, 'unzippedBytes' | 'ratio'>) {}

  async extract(file: ZipFileEntry, sink: EntrySink, opts: ExtractOptions = {}): Promise<Extracted> {
    const { entry, rawName: name } = file;
    if (entry.isEncrypted()) throw new PackageError(`Zip entry "${name}" is encrypted`);
    const method = entry.compressionMethod;
    if (method !== STORED && method !== DEFLATED) {
      throw new PackageError(`Zip entry "${name}" uses compression method ${method}; only stored and deflated entries are supported`);
    }
    const totalLeft = this.limits.unzippedBytes - this.total;
    const cap = Math.min(Math.max(this.limits.ratio * entry.compressedSize, RATIO_FREE_BYTES), totalLeft);
    const overCap = () => (cap === totalLeft
      ? new PackageError(`The package inflates to more than ${this.limits.unzippedBytes} bytes (PACKAGE_MAX_UNZIPPED_BYTES); stopped at zip entry "${name}"`)
      : new PackageError(`Zip entry "${name}" inflates more than ${this.limits.ratio} times its compressed size of ${entry.compressedSize} bytes (PACKAGE_MAX_RATIO): a zip bomb?`));
    // A stored entry is as long as its data: known too long before reading it.
    if (method === STORED ? entry.compressedSize > cap : cap <= 0) throw overCap();

    let raw: Readable;
    try {
      raw = await this.zip.openReadStreamPromise(entry, { decodeFileData: false });
    } catch (err) {
      throw cannotExtract(name, err);
    }
    const algorithms = [...new Set(['sha256', ...(opts.algorithms ?? [])])];
    const hashes = algorithms.map((a) => createHash(a));
    const kept: Buffer[] = [];
    let size = 0;
    let crc = 0;
    async function* produced(): AsyncGenerator<Buffer> {
      try {
        for await (const piece of method === DEFLATED ? inflated(raw) : raw) {
          size += piece.length;
          if (size > cap) throw overCap();
          crc = zlib.crc32(piece, crc);
          for (const h of hashes) h.update(piece);
          if (opts.keep) {
            if (size > opts.keep.maxBytes) throw opts.keep.tooBig();
            kept.push(piece);
          }
          yield piece;
        }
      } catch (err) {
        throw cannotExtract(name, err);
      }
      // Before the last piece is acknowledged: a put of a damaged entry never commits.
      if (size !== entry.uncompressedSize || crc !== entry.crc32) {
        throw new PackageError(`Zip entry "${name}" cannot be extracted (its size or CRC does not match the zip's directory)`);
      }
    }
    try {
      await sink(produced(), Math.max(cap, 0));
    } finally {
      raw.destroy(); // a sink that failed before reading leaves the entry's stream open otherwise
    }
    this.total += size;
    return {
      size,
      hashes: Object.fromEntries(algorithms.map((a, i) => [a, digest(hashes[i])])),
      kept: opts.keep ? Buffer.concat(kept, size) : undefined,
    };
  }
}

/** The entry's raw deflate data, inflated; a zlib or source error surfaces on the returned stream. */
function inflated(raw: Readable): Readable {
  const inflate = zlib.createInflateRaw();
  pipeline(raw, inflate).catch(() => undefined); // the error is the inflate stream's too, and read there
  return inflate;
}

function digest(h: Hash): string {
  return h.digest('hex');
}

/** A damaged entry is the package's fault (PackageError); a failing content store is not, and is passed on. */
function cannotExtract(name: string, err: unknown): Error {
  if (err instanceof PackageError || err instanceof ZipSourceError) return err;
  return new PackageError(`Zip entry "${name}" cannot be extracted (${err instanceof Error ? err.message : String(err)})`);
}
