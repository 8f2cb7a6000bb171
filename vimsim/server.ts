/**
 * The VIM simulator: the compute, network, image and volume services of the
 * embedded cloud (Nova v2.1, Neutron v2.0, Glance v2, Cinder v3 REST APIs,
 * tokens validated against the real Keystone) and the simulated machines
 * behind Nova's servers, plus an unauthenticated admin API (/sim).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';
import pino, { type Logger } from 'pino';
import { KeystoneAuth, type AuthSettings } from './auth/keystone';
import { computeRouter } from './compute/routes';
import { completeServer } from './compute/server-lifecycle';
import { Faults } from './faults/registry';
import { imageRouter } from './image/routes';
import { kubeDir, KubeRuntime } from './kube/runtime';
import type { KubeSettings } from './kube/node-parts';
import { Transitions } from './lifecycle/transitions';
import { networkRouter } from './network/routes';
import { Balancers } from './octavia/balancers';
import { octaviaRouter, requireOctavia } from './octavia/routes';
import { requireCloudAdmin } from './sim/admin-auth';
import { adminRouter } from './sim/routes';
import { Stats } from './sim/stats';
import { DEFAULT_SSH_USERS, type SshUser } from './ssh/credentials';
import { isUp, SshManager } from './ssh/manager';
import { sshAdminRouter } from './ssh/routes';
import { adoptSeed, applySeed, UNRESOLVED_OWNER } from './store/seed';
import { Store } from './store/store';
import { volumeRouter } from './volume/routes';
import { completeVolume } from './volume/volumes';

export type { SshUser } from './ssh/credentials';
export type { AuthSettings } from './auth/keystone';

export interface VimSimOptions {
  host?: string;
  port?: number;
  /** State lives in <dataDir>/vimsim/state.db. */
  dataDir: string;
  /** The Keystone the tokens are validated against, and the simulator's own service user there. */
  auth: AuthSettings;
  delayMs?: number;
  /** Port of every server's SSH endpoint (on its loopback addresses); 0 = no SSH endpoints. */
  sshPort?: number;
  /** The image's default accounts, used unless a server's user_data or adminPass says otherwise. */
  sshUsers?: SshUser[];
  /** Project (by name) owning the seeded networks and images; resolved through Keystone. */
  seedProject?: string;
  /** Third octet where the seeded subnets' address pools start (0: 127.20.0.2), for simulators side by side. */
  addressBlock?: number;
  /** Real Kubernetes control planes (vimsim/kube): the binaries and the timings tests shorten. */
  kube?: Partial<Omit<KubeSettings, 'dir'>>;
}

export interface VimSim {
  /** e.g. http://127.0.0.1:9891 */
  url: string;
  close(): Promise<void>;
}

export const DEFAULT_PORT = 9891;
export const DEFAULT_DELAY_MS = 300;
export const DEFAULT_SSH_PORT = 22;
export { DEFAULT_SSH_USERS };

function defaultLogger(): Logger {
  // Quiet under jest unless asked; the CLI sets its own level.
  const level = process.env.VIMSIM_LOG_LEVEL ?? (process.env.JEST_WORKER_ID ? 'warn' : 'info');
  return pino({ name: 'vimsim', level });
}

/**
 * Gives the seeded networks and images their owner, the admin project, once
 * Keystone can say its id: at start when Keystone is up (within a few
 * seconds), else when the service user first logs in.
 */
async function resolveSeedOwner(auth: KeystoneAuth, store: Store, project: string, log: Logger): Promise<void> {
  const adopt = async () => {
    const id = await auth.projectId(project);
    if (id) adoptSeed(store, id);
    else log.warn({ project }, 'seed owner project not found in Keystone');
  };
  try {
    await Promise.race([adopt(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 5000).unref())]);
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'Keystone not ready at start: the seed owner is resolved at the first login');
    auth.onLogin(() => void adopt().catch((e: unknown) => log.warn({ err: e }, 'seed owner project could not be resolved')));
  }
}

export async function startVimSim(opts: VimSimOptions, logger: Logger = defaultLogger()): Promise<VimSim> {
  const store = Store.open(path.join(opts.dataDir, 'vimsim'), (err) => logger.error({ err }, 'commit listener failed'));
  applySeed(store, opts.addressBlock ?? 0);
  const stats = new Stats();
  const faults = new Faults();
  const auth = new KeystoneAuth(opts.auth);
  if (store.list('networks').some((n) => n.project_id === UNRESOLVED_OWNER)) await resolveSeedOwner(auth, store, opts.seedProject ?? 'admin', logger);
  const transitions = new Transitions(store, faults, { delayMs: opts.delayMs ?? DEFAULT_DELAY_MS }, logger);
  transitions.register('servers', (id, pending) => completeServer(store, id, pending));
  transitions.register('volumes', (id) => completeVolume(store, id));
  const kube = new KubeRuntime(
    { podBackoffMs: 2000, ...opts.kube, dir: kubeDir(opts.dataDir) },
    {
      serverState: (id) => {
        const s = store.get('servers', id);
        return !s ? 'gone' : isUp(s) ? 'up' : 'stopped';
      },
      flavorOf: (id) => {
        const f = store.get('flavors', store.get('servers', id)?.flavor_id ?? '');
        return f && { vcpus: f.vcpus, ramMb: f.ram, diskGb: f.disk };
      },
      pullHeld: (id) => faults.holds('image', 'pull', store.get('servers', id)?.name ?? ''),
    },
    logger,
  );
  kube.start();
  const ssh = new SshManager(store, { port: opts.sshPort ?? DEFAULT_SSH_PORT, users: opts.sshUsers ?? DEFAULT_SSH_USERS }, logger, kube);
  const service = { auth, stats, log: logger };
  const domain = { store, faults, transitions, console: ssh };

  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use((req, _res, next) => {
    logger.debug({ method: req.method, url: req.originalUrl }, 'request');
    next();
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use('/compute', computeRouter(domain, service));
  app.use('/network', networkRouter(store, faults, service));
  app.use('/image', imageRouter(store, service));
  app.use('/volume', volumeRouter(domain, service));
  const balancers = new Balancers(store, logger);
  app.use('/sim/octavia', requireOctavia(auth, opts.seedProject ?? 'admin'), octaviaRouter(store, balancers));
  app.use('/sim', requireCloudAdmin(auth, opts.seedProject ?? 'admin'), adminRouter({ sshRoutes: sshAdminRouter(ssh), store, faults, timing: transitions.timing, stats, ssh, kube }));
  app.use((req, res) => {
    logger.warn({ method: req.method, path: req.originalUrl }, 'unrouted request');
    res.status(404).json({ error: { code: 404, title: 'Not Found', message: `No route for ${req.method} ${req.path}` } });
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    logger.error({ err, method: req.method, url: req.originalUrl }, 'unhandled error');
    res.status(500).json({ error: { code: 500, title: 'Internal Server Error', message: 'An unexpected error occurred.' } });
  });

  const server = http.createServer(app);
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? DEFAULT_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  // A wildcard bind is reached through loopback; otherwise advertise the bound host.
  const advertised = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const url = `http://${advertised}:${port}`;

  ssh.start();
  transitions.resume();
  logger.info({ url, dataDir: opts.dataDir, delayMs: transitions.timing.delayMs, keystone: opts.auth.authUrl }, 'VIM simulator listening');

  let closed: Promise<void> | undefined;
  return {
    url,
    close() {
      closed ??= new Promise<void>((resolve) => {
        // Timers stop but pending changes stay recorded: a restart resumes them.
        transitions.stop();
        ssh.close();
        void balancers.close();
        // every kube-apiserver and etcd stops before the simulator says it is closed
        const kubeStopped = ssh.closeKube().catch((err: unknown) => logger.error({ err }, 'control planes could not be stopped'));
        server.close(() => {
          void kubeStopped.then(() => {
            store.close();
            resolve();
          });
        });
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
