/** The HTTP front: thin routers that validate, record, start or signal workflows, and answer. */
import express from 'express';
import type { ApiContext } from './context';
import { problemHandler, sendProblem } from './errors';
import { openApiDocument } from './openapi';
import { vnflcmRouter } from './routes/vnflcm';
import { vnfpkgmRouter } from './routes/vnfpkgm';

export function createApp(ctx: ApiContext): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use((req, _res, next) => { ctx.log.debug({ method: req.method, path: req.path }, 'request'); next(); });
  app.get('/healthz', (_req, res) => { res.json({ status: 'ok' }); });
  const openapi = openApiDocument();
  app.get('/openapi.json', (_req, res) => { res.json(openapi); });
  app.get('/vnflcm/api_versions', (_req, res) => {
    res.json({ uriPrefix: '/vnflcm', apiVersions: [{ version: '1.3.0', isDeprecated: false }, { version: '2.0.0', isDeprecated: false }] });
  });
  app.use('/vnfpkgm/v1', vnfpkgmRouter(ctx));
  app.use('/vnflcm/v1', vnflcmRouter(ctx, 'v1'));
  app.use('/vnflcm/v2', vnflcmRouter(ctx, 'v2'));
  app.use((req, res) => sendProblem(res, 404, `no resource at ${req.method} ${req.path}`));
  app.use(problemHandler(ctx.log));
  return app;
}
