/**
 * Admin API under /sim (the cloud's admin only: sim/admin-auth.ts): cloud
 * faults, runtime config, call counters, and read-only views of servers
 * (with their SSH endpoints and simulated hosts), their Kubernetes and load
 * balancing sides, and networks.
 */
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { addressesOf } from '../compute/views';
import { FaultSpec, type Faults } from '../faults/registry';
import { ApiError, notFound } from '../http/errors';
import { parseBody, param } from '../http/validate';
import type { Timing } from '../lifecycle/transitions';
import { portView, subnetView } from '../network/views';
import type { ServerRecord } from '../store/records';
import type { Store } from '../store/store';
import type { SshManager } from '../ssh/manager';
import type { KubeRuntime } from '../kube/runtime';
import type { Stats } from './stats';

const ConsoleKeysBody = z.object({ keys: z.array(z.string().max(16_384)).max(16) }).strict();
const ConfigBody = z.object({ delayMs: z.number().int().min(0).max(3_600_000) }).strict();

export interface AdminDeps {
  /** The SSH side's own admin routes (/ssh, /ssh/faults), mounted here. */
  sshRoutes: Router;
  store: Store;
  faults: Faults;
  timing: Timing;
  stats: Stats;
  ssh: SshManager;
  kube?: KubeRuntime;
}

export function adminRouter({ sshRoutes, store, faults, timing, stats, ssh, kube }: AdminDeps): Router {
  const router = Router();
  router.use(express.json({ limit: '64kb' }));
  router.use(sshRoutes);
  router.post('/faults', (req, res) => {
    const spec = parseBody(FaultSpec, req.body ?? {});
    try {
      res.status(201).json(faults.add(spec));
    } catch (err) {
      throw new ApiError(400, `Invalid match: ${(err as Error).message}`);
    }
  });
  router.get('/faults', (_req, res) => {
    res.json({ faults: faults.list() });
  });
  router.delete('/faults/:id', (req, res) => {
    if (faults.remove(param(req, 'id')) === 0) throw notFound(`No fault ${param(req, 'id')}`);
    res.status(204).end();
  });
  router.delete('/faults', (_req, res) => {
    faults.remove();
    res.status(204).end();
  });

  router.get('/config', (_req, res) => {
    res.json({ delayMs: timing.delayMs });
  });
  router.post('/config', (req, res) => {
    timing.delayMs = parseBody(ConfigBody, req.body ?? {}).delayMs;
    res.json({ delayMs: timing.delayMs });
  });

  const serverView = (s: ServerRecord) => ({
    id: s.id,
    name: s.name,
    project: s.project_id,
    status: s.status,
    taskState: s.task_state,
    addresses: Object.fromEntries(Object.entries(addressesOf(s, store)).map(([net, list]) => [net, list.map((a) => a.addr)])),
    ...ssh.sshView(s),
    image: s.image_id,
    flavor: store.get('flavors', s.flavor_id)?.name ?? s.flavor_id,
    generation: s.generation,
    created: s.created,
  });
  const findServer = (idOrAddress: string) =>
    store.get('servers', idOrAddress) ?? store.list('servers').find((s) => ssh.addressesOf(s).includes(idOrAddress) || Object.values(addressesOf(s, store)).flat().some((a) => a.addr === idOrAddress));

  /** Every server; ?address=127.20.0.2 or ?name=... narrows the list. */
  router.get('/servers', (req, res) => {
    const { address, name } = req.query;
    const servers = store.list('servers').filter(
      (s) => (typeof address !== 'string' || Object.values(addressesOf(s, store)).flat().some((a) => a.addr === address)) && (typeof name !== 'string' || s.name === name),
    );
    res.json(servers.map(serverView));
  });
  router.get('/servers/:id', (req, res) => {
    const s = findServer(param(req, 'id'));
    if (!s) throw notFound(`No server ${param(req, 'id')}`);
    res.json(serverView(s));
  });
  /** What ran on the server and what was written there (by server id or address; ?generation=N for a disk before a rebuild; deleted servers' for a while). */
  router.get('/servers/:id/host', (req, res) => {
    const generation = req.query.generation === undefined ? undefined : Number(req.query.generation);
    if (generation !== undefined && !Number.isInteger(generation)) throw new ApiError(400, 'generation must be an integer');
    const host = ssh.findHost(param(req, 'id'), generation);
    if (!host) throw notFound(`No simulated host for ${param(req, 'id')}`);
    res.json(host.view());
  });

  /** The Kubernetes side of every live host: kubelet (service, node name, last lease renewal, last error) and static pods (real pids, restarts, last exit with its log). */
  router.get('/kube', (_req, res) => {
    res.json({ nodes: kube?.view() ?? [] });
  });
  router.get('/servers/:id/kube', (req, res) => {
    const host = ssh.findHost(param(req, 'id'));
    if (!host?.kube) throw notFound(`No simulated host for ${param(req, 'id')}`);
    res.json({ serverId: host.serverId, address: host.address, ...host.kube.view() });
  });

  /** Load balancing on the machines: every virtual router (VIPs, master, members with their state) and every live host's haproxy and keepalived. */
  router.get('/lb', (_req, res) => {
    res.json(ssh.lbView());
  });
  router.get('/servers/:id/lb', (req, res) => {
    const host = ssh.findHost(param(req, 'id'));
    if (!host?.lb) throw notFound(`No simulated host for ${param(req, 'id')}`);
    res.json(host.lb.view());
  });

  /**
   * Overrides the SSH host key lines a server's console prints (os-getConsoleOutput), by server id or name (a name
   * also covers servers created later under it, e.g. by a heal); DELETE restores the real keys.
   */
  router.put('/servers/:id/console-host-keys', (req, res) => {
    const { keys } = parseBody(ConsoleKeysBody, req.body ?? {});
    ssh.setConsoleHostKeys(param(req, 'id'), keys);
    res.json({ target: param(req, 'id'), keys });
  });
  router.delete('/servers/:id/console-host-keys', (req, res) => {
    ssh.setConsoleHostKeys(param(req, 'id'), undefined);
    res.status(204).end();
  });

  router.get('/network', (_req, res) => {
    res.json({
      networks: store.list('networks').map((n) => ({ id: n.id, name: n.name, project: n.project_id, shared: n.shared, external: n['router:external'] })),
      subnets: store.list('subnets').map(subnetView),
      ports: store.list('ports').map(portView),
    });
  });

  router.get('/stats', (_req, res) => {
    res.json(stats.snapshot());
  });
  router.delete('/stats', (_req, res) => {
    stats.reset();
    res.status(204).end();
  });

  router.use((req: Request) => {
    throw notFound(`No admin route ${req.method} ${req.originalUrl}`);
  });
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (err instanceof ApiError) res.status(err.status).json({ error: err.message });
    else if ((err as { type?: string }).type === 'entity.parse.failed') res.status(400).json({ error: 'Malformed JSON body' });
    else if ((err as { type?: string }).type === 'entity.too.large') res.status(413).json({ error: 'Body too large' });
    else next(err);
  });
  return router;
}
