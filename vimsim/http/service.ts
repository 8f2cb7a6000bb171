/**
 * The frame every emulated service shares: unauthenticated version documents,
 * then keystonemiddleware-like token validation, JSON bodies with a size
 * limit, the service's routes, a logged 404 for anything it does not route,
 * and errors in the service's own body shape (never a stack trace).
 */
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import type { RequestContext } from '../auth/context';
import { KeystoneUnavailable, type KeystoneAuth } from '../auth/keystone';
import type { Stats } from '../sim/stats';
import { requestId } from '../util/ids';
import { ApiError } from './errors';
import type { ErrorRenderer } from './error-shapes';

export interface ServiceDeps {
  auth: KeystoneAuth;
  stats: Stats;
  log: Logger;
}

export interface ServiceSpec {
  /** compute | network | image | volume: prefix of the stats counters and log lines. */
  name: string;
  renderError: ErrorRenderer;
  /** Routes answered without a token (version discovery). */
  publicRoutes?: (router: Router) => void;
  /** Runs after authentication, before the routes (e.g. Nova's microversion negotiation). */
  before?: RequestHandler[];
  routes: (router: Router, track: (operation: string) => RequestHandler) => void;
  /** JSON body limit (Nova: 112 KiB like its sizelimit middleware). */
  bodyLimit?: string;
  /** Extra JSON media types (Glance's json-patch). */
  jsonTypes?: string[];
}

/** For the trace log of request bodies: passwords and user_data (which may carry them) are left out. */
function hideSecrets(key: string, value: unknown): unknown {
  if (/pass|secret|^user_data$/i.test(key) && typeof value === 'string') return `<${value.length} chars>`;
  return value;
}

export function ctxOf(res: Response): RequestContext {
  return res.locals.ctx as RequestContext;
}

function authenticate(deps: ServiceDeps, name: string): RequestHandler {
  return async (req, res, next) => {
    const token = req.get('x-auth-token');
    const ctx = token ? await deps.auth.validate(token) : undefined;
    if (!ctx) {
      deps.stats.track('auth.unauthorized');
      deps.stats.track(`auth.unauthorized.${name}`);
      res.set('WWW-Authenticate', `Keystone uri="${deps.auth.authUrl}"`);
      throw new ApiError(401, 'The request you have made requires authentication.');
    }
    res.locals.ctx = ctx;
    next();
  };
}

export function serviceRouter(spec: ServiceSpec, deps: ServiceDeps): Router {
  const router = Router();
  const track = (operation: string): RequestHandler => (_req, res, next) => {
    deps.stats.track(`${spec.name}.${operation}`, res);
    next();
  };
  router.use((_req, res, next) => {
    res.set('X-OpenStack-Request-Id', requestId());
    next();
  });
  spec.publicRoutes?.(router);
  router.use(authenticate(deps, spec.name));
  router.use(express.json({ limit: spec.bodyLimit ?? '1mb', type: ['application/json', ...(spec.jsonTypes ?? [])], strict: false }));
  router.use((req, _res, next) => {
    if (req.body !== undefined && deps.log.isLevelEnabled('trace')) {
      deps.log.trace({ service: spec.name, method: req.method, path: req.originalUrl, body: JSON.parse(JSON.stringify(req.body, hideSecrets)) }, 'request body');
    }
    next();
  });
  for (const handler of spec.before ?? []) router.use(handler);
  spec.routes(router, track);
  router.use((req: Request) => {
    deps.log.warn({ service: spec.name, method: req.method, path: req.originalUrl }, 'unrouted request');
    deps.stats.track(`${spec.name}.unrouted`);
    throw new ApiError(404, `The resource could not be found.`);
  });
  router.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    spec.renderError(toApiError(err, deps.log, spec.name, req), req, res);
  });
  return router;
}

/** Body-parser failures, Keystone outages and bugs, as the service would answer them. */
function toApiError(err: unknown, log: Logger, service: string, req: Request): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof KeystoneUnavailable) {
    log.error({ err: err.message }, 'token validation impossible');
    return new ApiError(503, 'The Keystone service is temporarily unavailable.');
  }
  const type = (err as { type?: string }).type;
  if (type === 'entity.too.large') return new ApiError(413, 'Request is too large.');
  if (type === 'entity.parse.failed') return new ApiError(400, 'Malformed request body');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return new ApiError(415, 'Unsupported Content-Type');
  if (type === 'request.aborted') return new ApiError(400, 'Request aborted');
  log.error({ err, service, method: req.method, path: req.originalUrl }, 'unhandled error');
  return new ApiError(500, 'An unexpected error occurred.');
}
