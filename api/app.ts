/**
 * The HTTP front: thin routers that validate, record, start or signal
 * workflows, and answer. Every route but version discovery, the probes
 * (/healthz, /readyz) and /metrics (to METRICS_ALLOWED_CIDRS only) needs a
 * Keystone token (api/auth); each router checks
 * its policy rules and finds rows only in the caller's project.
 */
import express, { type Request } from 'express';
import { AuthFailureLimiter } from './auth/failure-limit';
import { authenticate, type ErrorRenderer } from './auth/middleware';
import type { ApiContext } from './context';
import { problemHandler, sendProblem } from './errors';
import { methodNotAllowed } from './method-not-allowed';
import { checkHost } from './limits/host-check';
import { acceptJson } from './limits/accept';
import { checkMediaType, parseJsonBody, rejectNulInUrl } from './limits/request-body';
import { openApiDocument } from './openapi';
import { usePolicy } from './routes/authorize';
import { sendTackerError, vimsRouter } from './routes/vims';
import { vnflcmRouter } from './routes/vnflcm';
import { vnfpkgmRouter } from './routes/vnfpkgm';
import { sendMagnumError } from './magnum/errors';
import { versionHeaders } from './magnum/microversion';
import { magnumRouter } from './magnum/router';
import { rootDocument } from './magnum/versions';
import { keystoneCheck, sharedProbe, storeCheck, temporalCheck } from '../infra/readiness';
import { httpMetrics, metricsRoute } from './metrics';
import { traceRequests } from './tracing';
import { metricsOn } from '../common/metrics';

/** Magnum's /v1 (not Tacker's /v1.0). */
const isMagnum = (path: string) => /^\/v1(\/|$)/.test(path);

/** Errors in the shape of the API a path belongs to: Tacker's legacy /v1.0, Magnum's /v1, else ETSI ProblemDetails. */
const rendererFor = (req: Request): ErrorRenderer => {
  if (req.path.startsWith('/v1.0/')) return sendTackerError;
  if (isMagnum(req.path)) return (res, status, detail) => { versionHeaders(res, undefined); sendMagnumError(res, status, detail); };
  return (res, status, detail) => sendProblem(res, status, detail);
};

export function createApp(ctx: ApiContext): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  usePolicy(ctx.policy);
  app.use(traceRequests());
  if (metricsOn) {
    app.use(httpMetrics());
    // before authentication (Prometheus sends no token), to METRICS_ALLOWED_CIDRS only
    app.get('/metrics', metricsRoute(ctx.db));
  }
  app.use((req, _res, next) => { ctx.log.debug({ method: req.method, path: req.path }, 'request'); next(); });
  app.use(checkHost(ctx.cfg.limits.allowedHosts, rendererFor));
  const failures = new AuthFailureLimiter(ctx.cfg.identity.failuresPerClient, ctx.cfg.identity.failureWindowMs);
  app.use(authenticate(ctx.tokens, failures, rendererFor));
  // After authentication: nobody unauthenticated makes the API read a body.
  app.use(rejectNulInUrl(rendererFor));
  app.use(checkMediaType(rendererFor));
  app.use(acceptJson(rendererFor));
  app.use(parseJsonBody(ctx.cfg.limits, rendererFor));
  app.get('/healthz', (_req, res) => { res.json({ status: 'ok' }); });
  // ready to serve: the store, Temporal and Keystone answer (503 naming the one that does not)
  const probe = sharedProbe([storeCheck(ctx.db), temporalCheck(ctx.temporal), keystoneCheck(ctx.cfg.identity.authUrl)], ctx.log);
  app.get('/readyz', async (_req, res) => {
    const a = await probe();
    res.status(a.status).json(a.body);
  });
  // one root for both clients: Magnum's document, listing Magnum's v1 and Tacker's v1.0
  app.get('/', (_req, res) => { res.json(rootDocument(ctx.cfg.apiBaseUrl)); });
  const openapi = openApiDocument();
  app.get('/openapi.json', (_req, res) => { res.json(openapi); });
  app.get('/vnflcm/api_versions', (_req, res) => {
    res.json({ uriPrefix: '/vnflcm', apiVersions: [{ version: '1.3.0', isDeprecated: false }, { version: '2.0.0', isDeprecated: false }] });
  });
  app.use('/v1.0', vimsRouter(ctx));
  app.use('/v1', magnumRouter(ctx));
  app.use('/vnfpkgm/v1', vnfpkgmRouter(ctx));
  app.use('/vnflcm/v1', vnflcmRouter(ctx, 'v1'));
  app.use('/vnflcm/v2', vnflcmRouter(ctx, 'v2'));
  app.use(methodNotAllowed(() => app.router, (req, res, detail) => rendererFor(req)(res, 405, detail)));
  app.use((req, res) => rendererFor(req)(res, 404, `no resource at ${req.method} ${req.path}`));
  app.use(problemHandler(ctx.log));
  return app;
}
