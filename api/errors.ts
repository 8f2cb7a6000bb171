/**
 * HTTP errors as ETSI ProblemDetails (application/problem+json). Every
 * failure path of the ETSI routers ends in sendProblem(); unexpected errors
 * become a 500 without internals.
 */
import type { ErrorRequestHandler, Response } from 'express';
import type { ProblemDetails } from '../common/problem';
import { redactString } from '../common/secrets';

export { HttpError, badRequest, conflict, forbidden, notFound, unprocessable } from '../common/http-error';
import { HttpError } from '../common/http-error';
import { StoreBusy } from '../store/sql-store';

const TITLES: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 405: 'Method Not Allowed', 406: 'Not Acceptable', 409: 'Conflict', 412: 'Precondition Failed', 413: 'Payload Too Large', 415: 'Unsupported Media Type', 416: 'Range Not Satisfiable', 422: 'Unprocessable Entity', 500: 'Internal Server Error', 503: 'Service Unavailable' };

export function sendProblem(res: Response, status: number, detail: string, title?: string, extra: Record<string, unknown> = {}): void {
  const body: ProblemDetails = { type: 'about:blank', title: title ?? TITLES[status] ?? 'Error', status, detail: redactString(detail), ...extra };
  res.status(status).type('application/problem+json').send(JSON.stringify(body));
}

/** Express error handler: body-parser failures are the client's (4xx), the rest is ours. */
export function problemHandler(log: { error: (o: object, m: string) => void }): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (err instanceof HttpError) return sendProblem(res, err.status, err.message, err.title, err.extra);
    if (err instanceof StoreBusy) {
      res.setHeader('Retry-After', String(err.retryAfterS));
      return sendProblem(res, 503, `${err.message}; send the request again`);
    }
    const e = err as { type?: string; status?: number; message?: string };
    if (e.type === 'entity.parse.failed') return sendProblem(res, 400, `request body is not valid JSON: ${e.message}`);
    if (e.type === 'entity.too.large') return sendProblem(res, 413, 'request body too large');
    if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) return sendProblem(res, e.status, e.message ?? 'bad request');
    log.error({ err: { message: e.message }, path: req.path }, 'unhandled API error');
    return sendProblem(res, 500, 'internal error; see the API log');
  };
}
