import { createHash } from 'node:crypto';
import { TooLarge, type ContentInfo } from './types';

/**
 * Passes `body` through, counting and hashing it; throws TooLarge as soon as
 * it has passed `maxBytes`. `info` is complete once the iteration ends.
 */
export async function* metered(body: AsyncIterable<Buffer>, maxBytes: number, info: ContentInfo): AsyncGenerator<Buffer> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const piece of body) {
    const bytes = Buffer.isBuffer(piece) ? piece : Buffer.from(piece);
    size += bytes.length;
    if (size > maxBytes) throw new TooLarge(maxBytes);
    hash.update(bytes);
    yield bytes;
  }
  info.size = size;
  info.sha256 = hash.digest('hex');
}

/** Collects a stream of at most maxBytes (the caller checked the size; a longer stream is an error). */
export async function collect(body: AsyncIterable<Buffer>, maxBytes: number): Promise<Buffer> {
  const pieces: Buffer[] = [];
  let size = 0;
  for await (const piece of body) {
    size += piece.length;
    if (size > maxBytes) throw new TooLarge(maxBytes);
    pieces.push(piece);
  }
  return Buffer.concat(pieces, size);
}
