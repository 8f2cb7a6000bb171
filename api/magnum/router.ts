/**
 * Magnum's API at /v1 (seed 003), for the stock `openstack coe` client:
 * every answer carries X-OpenStack-Request-Id and the microversion headers;
 * errors are Magnum's {"errors": [...]}; routes take the trailing slashes
 * the client sends (/v1/clusters/?limit=2, /v1/clusters/<id>/nodegroups/).
 */
import { Router } from 'express';
import type { ApiContext } from '../context';
import { magnumErrorHandler, requestIdOf, sendMagnumError } from './errors';
import { methodNotAllowed } from '../method-not-allowed';
import { microversions } from './microversion';
import { certificatesRouter } from './routes/certificates';
import { clustersRouter } from './routes/clusters';
import { nodegroupsRouter } from './routes/nodegroups';
import { magnumOperationsRouter } from './routes/operations';
import { quotasRouter } from './routes/quotas';
import { serviceRouter } from './routes/service';
import { templatesRouter } from './routes/templates';
import { v1Document } from './versions';

export function magnumRouter(ctx: ApiContext): Router {
  const r = Router({ strict: false });
  r.use((_req, res, next) => { requestIdOf(res); next(); });
  r.use(microversions((res, e) => sendMagnumError(res, e.status, e.message, e.extra)));
  r.get('/', (_req, res) => { res.json(v1Document(ctx.cfg.apiBaseUrl)); });
  r.use(templatesRouter(ctx));
  r.use(clustersRouter(ctx));
  r.use(magnumOperationsRouter(ctx));
  r.use(nodegroupsRouter(ctx));
  r.use(certificatesRouter(ctx));
  r.use(quotasRouter(ctx));
  r.use(serviceRouter(ctx));
  r.use(methodNotAllowed(() => r, (_req, res, detail) => sendMagnumError(res, 405, detail)));
  r.use((req, res) => sendMagnumError(res, 404, `The resource could not be found: ${req.method} /v1${req.path}.`));
  r.use(magnumErrorHandler(ctx.log));
  return r;
}
