/**
 * SOL013's ETags on the individual resources a client can PATCH (VnfPkgInfo, VnfInstance): a GET answers the
 * representation's ETag; a PATCH with If-Match goes ahead only while the resource is as the client last read it,
 * else 412 and nothing is changed (a second operator's change is not silently overwritten).
 */
import crypto from 'node:crypto';
import type { Request } from 'express';
import { HttpError } from './errors';

/** A strong ETag: the hash of the representation as rendered. */
export function etagOf(representation: unknown): string {
  return `"${crypto.createHash('sha256').update(JSON.stringify(representation)).digest('base64url').slice(0, 27)}"`;
}

/** 412 unless the request's If-Match (absent, `*`, or a list of ETags) matches the resource's current representation. */
export function checkIfMatch(req: Request, current: unknown): void {
  const header = req.get('If-Match');
  if (header === undefined || header.trim() === '*') return;
  const asked = header.split(',').map((t) => t.trim());
  const now = etagOf(current);
  if (!asked.includes(now)) throw new HttpError(412, `If-Match ${header} does not match the resource's current ETag ${now}: it changed since it was read; read it again`);
}
