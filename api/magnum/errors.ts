/**
 * Magnum's error body (magnum/api/middleware/parsable_error.py):
 * {"errors": [{request_id, code: client|server, status, title, detail, links}]},
 * title being the message up to its first ".". A 401 keeps keystonemiddleware's
 * {"error": {code, title, message}}. Every /v1 answer carries X-OpenStack-Request-Id.
 */
import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import { StoreBusy } from '../../store/sql-store';
import { HttpError } from '../../common/http-error';
import { redactString } from '../../common/secrets';

export function requestIdOf(res: Response): string {
  let id = res.locals.requestId as string | undefined;
  if (!id) {
    id = `req-${crypto.randomUUID()}`;
    res.locals.requestId = id;
    res.set('X-OpenStack-Request-Id', id);
  }
  return id;
}

/** Magnum's title: the first sentence, without its full stop. */
export function titleOf(message: string): string {
  const i = message.indexOf('. ');
  const first = i === -1 ? message : message.slice(0, i);
  return first.replace(/\.$/, '');
}

export function sendMagnumError(res: Response, status: number, message: string, extra: Record<string, unknown> = {}): void {
  const detail = redactString(message);
  const requestId = requestIdOf(res);
  if (status === 401) {
    res.status(401).json({ error: { code: 401, title: 'Unauthorized', message: detail } });
    return;
  }
  res.status(status).json({
    errors: [{ request_id: requestId, code: status >= 500 ? 'server' : 'client', status, title: titleOf(detail), detail, links: [], ...extra }],
  });
}

/** The router's error handler: HttpErrors as they are, body-parser's refusals as 4xx, the rest a 500 without internals. */
export function magnumErrorHandler(log: { error: (o: object, m: string) => void }) {
  return (err: unknown, req: Request, res: Response, _next: (e?: unknown) => void) => {
    if (err instanceof HttpError) return sendMagnumError(res, err.status, err.message, err.status === 406 ? err.extra : {});
    if (err instanceof StoreBusy) {
      res.setHeader('Retry-After', String(err.retryAfterS));
      return sendMagnumError(res, 503, `${err.message}; send the request again.`);
    }
    const e = err as { type?: string; status?: number; message?: string };
    if (e.type === 'entity.parse.failed') return sendMagnumError(res, 400, `The request body is not valid JSON: ${e.message}`);
    if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) return sendMagnumError(res, e.status, e.message ?? 'bad request');
    log.error({ err: { message: e.message }, path: req.path }, 'unhandled Magnum API error');
    return sendMagnumError(res, 500, 'Internal error; see the API log.');
  };
}
