/**
 * The VIM simulator: a standalone HTTP service speaking a subset of
 * OpenStack Keystone v3 (/identity/v3) and Heat v1 (/heat/v1/{project}),
 * plus an unauthenticated admin API (/sim) for fault injection.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';
import pino, { type Logger } from 'pino';
import { StackEngine } from './engine/stack-engine';
import { FaultRegistry } from './engine/faults';
import { heatRouter } from './heat/routes';
import { Identity, type SimUser } from './keystone/identity';
import { keystoneRouter } from './keystone/routes';
import { TokenService } from './keystone/tokens';
import { adminRouter } from './sim/routes';
import { DEFAULT_SSH_USERS, type SshUser } from './ssh/credentials';
import { SshManager } from './ssh/manager';
import { sshAdminRouter } from './ssh/routes';
import { Stats } from './sim/stats';
import { StateStore } from './state/store';

export type { SimUser } from './keystone/identity';
export type { SshUser } from './ssh/credentials';

export interface VimSimOptions {
  host?: string;
  port?: number;
  /** State lives in <dataDir>/vimsim/state.db. */
  dataDir: string;
  delayMs?: number;
  tokenTtlSec?: number;
  users?: SimUser[];
  sshCidr?: string;
  /** Port of every server's SSH endpoint (on its pool address); 0 = no SSH endpoints. */
  sshPort?: number;
  /** The image's default accounts, used unless a server's user_data says otherwise. */
  sshUsers?: SshUser[];
}

export interface VimSim {
  /** e.g. http://127.0.0.1:9891 */
  url: string;
  /** url + '/identity/v3' */
  keystoneUrl: string;
  close(): Promise<void>;
}

export const DEFAULT_PORT = 9891;
export const DEFAULT_DELAY_MS = 300;
export const DEFAULT_SSH_CIDR = '127.20.0.0/16';
export const DEFAULT_SSH_PORT = 22;
export { DEFAULT_SSH_USERS };
export const DEFAULT_USERS: SimUser[] = [{ name: 'admin', password: 'devstack', project: 'admin', domain: 'Default' }];

function defaultLogger(): Logger {
  // Quiet under jest unless asked; the CLI sets its own level.
  const level = process.env.VIMSIM_LOG_LEVEL ?? (process.env.JEST_WORKER_ID ? 'warn' : 'info');
  return pino({ name: 'vimsim', level });
}

export async function startVimSim(opts: VimSimOptions, logger: Logger = defaultLogger()): Promise<VimSim> {
  const store = StateStore.open(path.join(opts.dataDir, 'vimsim'));
  const stats = new Stats();
  const identity = new Identity(opts.users ?? DEFAULT_USERS);
  const tokens = new TokenService(store, opts.tokenTtlSec ?? 3600);
  const faults = new FaultRegistry(store);
  const engine = new StackEngine(
    store,
    faults,
    { delayMs: opts.delayMs ?? DEFAULT_DELAY_MS, sshCidr: opts.sshCidr ?? DEFAULT_SSH_CIDR },
    logger,
  );
  const ssh = new SshManager(
    store,
    { port: opts.sshPort ?? DEFAULT_SSH_PORT, sshCidr: engine.settings.sshCidr, users: opts.sshUsers ?? DEFAULT_SSH_USERS },
    logger,
  );

  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '50mb' }));
  app.use((req, _res, next) => {
    logger.debug({ method: req.method, url: req.originalUrl }, 'request');
    next();
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use('/identity', keystoneRouter(identity, tokens, stats));
  app.use('/heat', heatRouter({ store, engine, tokens, stats }));
  app.use('/sim', sshAdminRouter(ssh));
  app.use('/sim', adminRouter({ store, engine, faults, tokens, stats }));
  app.use((req, res) => {
    res.status(404).json({ error: { code: 404, title: 'Not Found', message: `No route for ${req.method} ${req.path}` } });
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status = (err as { status?: number }).status;
    if (status && status >= 400 && status < 500) {
      res.status(status).json({ error: { code: status, title: 'Bad Request', message: (err as Error).message } });
      return;
    }
    logger.error({ err, method: req.method, url: req.originalUrl }, 'unhandled error');
    res.status(500).json({ error: { code: 500, title: 'Internal Server Error', message: (err as Error).message ?? String(err) } });
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

  engine.resumeAll();
  ssh.start();
  logger.info({ url, dataDir: opts.dataDir, delayMs: engine.settings.delayMs }, 'VIM simulator listening');

  let closed: Promise<void> | undefined;
  return {
    url,
    keystoneUrl: `${url}/identity/v3`,
    close() {
      closed ??= new Promise<void>((resolve) => {
        // Timers stop but pending operations stay recorded: a restart resumes them.
        engine.stopTimers();
        ssh.close();
        server.close(() => {
          store.close();
          resolve();
        });
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
