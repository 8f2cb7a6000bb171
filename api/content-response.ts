/**
 * Package content over HTTP, streamed both ways: an upload goes to the
 * content store as it arrives, a download comes from it chunk by chunk, with
 * Content-Length and, for `Range: bytes=…` (SOL005 allows it on package
 * content and artifacts), one range as 206 Partial Content.
 */
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import type { ByteRange, ContentRead } from '../store/content';
import { HttpError } from './errors';

/**
 * Feeds a request body to `consume` through a PassThrough: a failed consume
 * destroys the PassThrough, not the request, whose rest is then read and
 * dropped (as body-parser does) so the caller gets its answer (a 413) and
 * the connection stays usable.
 */
export async function receiveBody<T>(body: Readable, consume: (stream: Readable) => Promise<T>): Promise<T> {
  const pass = new PassThrough();
  body.once('close', () => { if (!body.readableEnded) pass.destroy(new Error('the upload was aborted')); });
  body.pipe(pass);
  try {
    return await consume(pass);
  } catch (e) {
    body.unpipe(pass);
    body.resume();
    throw e;
  }
}

/** Sends what `open` reads (the whole object, or the one range asked for); 404 `missing` when there is nothing. */
export async function sendContent(req: Request, res: Response, type: string, missing: string, open: (range?: ByteRange) => Promise<ContentRead | undefined>): Promise<void> {
  let found = await open();
  if (!found) throw new HttpError(404, missing);
  const asked = req.get('range');
  const range = asked === undefined ? undefined : parseRange(asked, found.size);
  if (range === null) {
    found.stream.destroy();
    res.setHeader('Content-Range', `bytes */${found.size}`);
    throw new HttpError(416, `range ${asked} is not within the content's ${found.size} bytes`);
  }
  res.type(type).setHeader('Accept-Ranges', 'bytes');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (range) {
    found.stream.destroy();
    found = await open(range);
    if (!found) throw new HttpError(404, missing);
    res.status(206).setHeader('Content-Range', `bytes ${range.start}-${range.end - 1}/${found.size}`);
    res.setHeader('Content-Length', String(range.end - range.start));
  } else {
    res.setHeader('Content-Length', String(found.size));
  }
  await pipeline(found.stream, res).catch(() => res.destroy()); // the caller went away, or the store failed mid-download
}

/** One `bytes=a-b`, `bytes=a-` or `bytes=-n` range within `size`; undefined for a header we ignore (serve it all); null when unsatisfiable (416). */
function parseRange(header: string, size: number): ByteRange | undefined | null {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined; // several ranges, another unit: the whole object (RFC 9110 allows it)
  const [start, end] = m[1] === ''
    ? [Math.max(size - Number(m[2]), 0), size]
    : [Number(m[1]), m[2] === '' ? size : Math.min(Number(m[2]) + 1, size)];
  return start < end ? { start, end } : null;
}

/** Artifact media types by extension; anything else is application/octet-stream. */
const TYPES: Record<string, string> = {
  yaml: 'application/yaml', yml: 'application/yaml', json: 'application/json', meta: 'text/plain', txt: 'text/plain',
  sh: 'text/x-shellscript', py: 'text/x-python', xml: 'application/xml', zip: 'application/zip', pem: 'application/x-pem-file', crt: 'application/x-x509-ca-cert',
};

export function artifactType(path: string): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase() ?? '';
  return TYPES[ext] ?? 'application/octet-stream';
}
