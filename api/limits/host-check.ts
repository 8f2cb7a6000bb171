/**
 * DNS rebinding guard: a page on evil.test whose name is made to resolve to
 * 127.0.0.1 reaches the API with `Host: evil.test`. Only the names the API
 * is known by are answered (Limits.allowedHosts; "*" turns the check off).
 */
import type { Request, RequestHandler } from 'express';
import type { ErrorRenderer } from '../auth/middleware';

/** The host name of a Host header, without port or IPv6 brackets, lower case. */
export function hostNameOf(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') === -1 ? undefined : h.indexOf(']'));
  const colon = h.indexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

export function checkHost(allowed: string[], render: (req: Request) => ErrorRenderer): RequestHandler {
  const names = new Set(allowed.map((h) => h.toLowerCase()));
  return (req, res, next) => {
    if (names.has('*')) return next();
    const host = hostNameOf(req.headers.host ?? '');
    if (names.has(host)) return next();
    render(req)(res, 400, `Host "${host}" is not a name this API answers to (see API_ALLOWED_HOSTS)`);
  };
}
