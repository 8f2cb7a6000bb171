/**
 * A refusal of a caller's request: an HTTP status and a detail naming the
 * field and the reason. Thrown by API routes and by the operation prechecks
 * (ops/<api>/<op>/precheck.ts); each API family renders it in its own error
 * shape (ETSI ProblemDetails, Magnum's {"errors": [...]}).
 */
export class HttpError extends Error {
  constructor(readonly status: number, message: string, readonly title?: string, readonly extra: Record<string, unknown> = {}) {
    super(message);
  }
}

export const badRequest = (detail: string, extra?: Record<string, unknown>) => new HttpError(400, detail, 'Bad Request', extra);
export const forbidden = (detail: string) => new HttpError(403, detail, 'Forbidden');
export const notFound = (detail: string) => new HttpError(404, detail, 'Not Found');
export const conflict = (detail: string) => new HttpError(409, detail, 'Conflict');
export const unprocessable = (detail: string) => new HttpError(422, detail, 'Unprocessable Entity');
