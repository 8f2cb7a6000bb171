/**
 * Authentication in front of every route but version discovery and the
 * probes (/healthz, /readyz): a Keystone token in X-Auth-Token, checked by
 * TokenValidator.
 * A missing or invalid token gets 401 with `WWW-Authenticate: Keystone
 * uri="<auth_url>"`, in the error shape of the API the path belongs to; a
 * client with too many of those gets 429 for unknown tokens for a while
 * (failure-limit.ts).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { accessAllowed, serviceTypeOf } from './access-rules';
import type { AuthFailureLimiter } from './failure-limit';
import type { Caller, TokenValidator } from './tokens';
import { IdentityUnavailable } from './tokens';

export type ErrorRenderer = (res: Response, status: number, detail: string) => void;

/** GETs anyone may make: version discovery and health. */
const PUBLIC_GETS = [/^\/$/, /^\/healthz$/, /^\/readyz$/, /^\/vnflcm\/api_versions$/, /^\/vnflcm\/v[12]\/api_versions$/, /^\/vnfpkgm\/v1\/api_versions$/, /^\/v1\/?$/];

export function isPublic(req: Request): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && PUBLIC_GETS.some((re) => re.test(req.path));
}

export function authenticate(validator: TokenValidator, limiter: AuthFailureLimiter, render: (req: Request) => ErrorRenderer): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (isPublic(req)) return next();
    const client = req.socket.remoteAddress ?? '';
    const refuse = (detail: string) => {
      limiter.failed(client);
      res.set('WWW-Authenticate', `Keystone uri="${validator.authUrl}"`);
      render(req)(res, 401, detail);
    };
    const token = req.get('x-auth-token');
    if (!token) return refuse('authentication required: send a Keystone token in X-Auth-Token');
    const admit = (caller: Caller) => {
      if (caller.accessRules && !accessAllowed(caller.accessRules, req.method, req.path)) {
        res.set('WWW-Authenticate', `Keystone uri="${validator.authUrl}"`);
        return render(req)(res, 401, `the application credential's access rules do not allow ${req.method} ${req.path} on ${serviceTypeOf(req.path)}`);
      }
      res.locals.caller = caller;
      next();
    };
    const known = validator.cached(token);
    if (known) return admit(known);
    const wait = limiter.retryAfter(client);
    if (wait > 0) {
      res.set('Retry-After', String(wait));
      return render(req)(res, 429, `too many failed authentications from this client; try again in ${wait} s`);
    }
    validator.validate(token).then((caller) => {
      if (!caller) return refuse('the X-Auth-Token is not a valid project-scoped Keystone token');
      admit(caller);
    }, (e) => {
      if (e instanceof IdentityUnavailable) return render(req)(res, 503, 'the identity service is unavailable; try again later');
      next(e);
    });
  };
}

/** The authenticated caller of a request (set by authenticate()). */
export function callerOf(res: Response): Caller {
  const c = res.locals.caller as Caller | undefined;
  if (!c) throw new Error('no authenticated caller on this request');
  return c;
}
