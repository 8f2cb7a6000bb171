/**
 * /sim/octavia: what the embedded Octavia's provider driver calls (no tenant
 * ever does). Only the `octavia` service user (role admin in project
 * `service`) or the cloud's admin may: it creates ports in any project and
 * binds addresses in the simulator's process.
 *   POST   /vip-ports                  {loadbalancer_id, project_id, subnet_id?, network_id?, ip_address?} -> the port
 *   POST   /member-checks              {project_id, address, subnet_id?} -> 204, or 400 with the reason
 *   PUT    /loadbalancers/{id}         the whole graph (schema.ts) -> its view (listeners, member health)
 *   GET    /loadbalancers[/{id}]       views
 *   DELETE /loadbalancers/{id}?vip_port_id=  proxies stopped, VIP port deleted
 */
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { KeystoneUnavailable, type KeystoneAuth } from '../auth/keystone';
import { ApiError, notFound } from '../http/errors';
import { parseBody, param, queryString } from '../http/validate';
import type { Store } from '../store/store';
import type { Balancers } from './balancers';
import { checkMember, createVipPort } from './containment';
import { LoadBalancerSpec, MemberCheck, VipPortRequest } from './schema';

export const OCTAVIA_SERVICE_USER = 'octavia';

export function requireOctavia(auth: KeystoneAuth, adminProject: string): RequestHandler {
  return async (req, res, next) => {
    const token = req.get('x-auth-token');
    let ctx;
    try {
      ctx = token ? await auth.validate(token) : undefined;
    } catch (e) {
      if (!(e instanceof KeystoneUnavailable)) throw e;
      return void res.status(503).json({ error: 'Keystone cannot validate the token now; try again.' });
    }
    if (!ctx) return void res.status(401).json({ error: 'The /sim/octavia API needs an X-Auth-Token of the octavia service user.' });
    const octavia = ctx.userName === OCTAVIA_SERVICE_USER && ctx.projectName === 'service';
    if (!ctx.isAdmin || !(octavia || ctx.projectName === adminProject)) {
      return void res.status(403).json({ error: 'The /sim/octavia API is for the octavia service user (or the cloud admin) only.' });
    }
    next();
  };
}

export function octaviaRouter(store: Store, balancers: Balancers): Router {
  const router = Router();
  router.use(express.json({ limit: '512kb' }));
  router.post('/vip-ports', (req, res) => {
    const port = createVipPort(store, parseBody(VipPortRequest, req.body ?? {}));
    const ip = port.fixed_ips[0];
    res.status(201).json({ port_id: port.id, network_id: port.network_id, subnet_id: ip.subnet_id, ip_address: ip.ip_address });
  });
  router.post('/member-checks', (req, res) => {
    const c = parseBody(MemberCheck, req.body ?? {});
    checkMember(store, c.project_id, c.address, c.subnet_id);
    res.status(204).end();
  });
  router.put('/loadbalancers/:id', async (req, res) => {
    res.json(await balancers.apply(param(req, 'id'), parseBody(LoadBalancerSpec, req.body ?? {})));
  });
  router.get('/loadbalancers', (_req, res) => {
    res.json({ loadbalancers: balancers.list() });
  });
  router.get('/loadbalancers/:id', (req, res) => {
    const view = balancers.get(param(req, 'id'));
    if (!view) throw notFound(`No load balancer ${param(req, 'id')}`);
    res.json(view);
  });
  router.delete('/loadbalancers/:id', async (req, res) => {
    await balancers.remove(param(req, 'id'), queryString(req.query, 'vip_port_id'));
    res.status(204).end();
  });
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (err instanceof ApiError) res.status(err.status).json({ error: err.message });
    else if ((err as { type?: string }).type === 'entity.parse.failed') res.status(400).json({ error: 'Malformed JSON body' });
    else if ((err as { type?: string }).type === 'entity.too.large') res.status(413).json({ error: 'Body too large' });
    else next(err);
  });
  return router;
}
