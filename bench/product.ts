/**
 * The product under measurement, started like test/harness/setup.ts does: a
 * Temporal dev server, the embedded cloud (real Keystone and Heat, the VIM
 * simulator with zero delay), a worker and the API, each on a free loopback
 * port with a fresh data directory. BENCH_HEAT_SLEEP_SCALE sets Heat's sleep
 * scale (default 1: stock Heat, what a user waits for).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCloud, type RunningCloud } from '../runtime/cloud';
import { ensureKubeToolchain } from '../runtime/kube';
import { DevServer, startDevServer } from '../runtime/dev-server';
import { Child, scriptsWorkerEnv, startComponent, stopComponent, waitForHttp } from '../runtime/processes';
import { freePort } from '@nfv-orchestrator/lib/free-port';
import { findPid } from './procs';

export const TASK_QUEUE = 'nfv-lcm-bench';
/** The worker's HEAT_POLL_MS (first interval between stack status polls; x1.5 per poll up to 15 s): BENCH_HEAT_POLL_MS, default 50. */
export const HEAT_POLL_MS = Number(process.env.BENCH_HEAT_POLL_MS || '50');

export interface Product {
  dataDir: string;
  apiUrl: string;
  temporalAddress: string;
  /** Keystone v3 of the embedded cloud (its admin, project admin: the product's default VIM). */
  authUrl: string;
  /** The embedded cloud's admin: this run's own generated password. */
  admin: AdminLogin;
  heatUrl: string;
  /** The simulator (Nova, Neutron, ... and its admin API /sim). */
  vimsimUrl: string;
  /** Processes of the product: temporal (dev server), keystone, heat, vimsim, worker, api. */
  pids: Record<'temporal' | 'keystone' | 'heat' | 'vimsim' | 'worker' | 'api', number>;
  /** Heat's task sleep scale of this run. */
  heatSleepScale: number;
  /** Extra dev server flags this run used (BENCH_TEMPORAL_ARGS). */
  temporalArgs: string[];
  /** Stops every process (also done on SIGINT/SIGTERM). */
  stop(): Promise<void>;
  /** Stops the worker and the API and starts them again with `extraEnv` added (the same ports and store); pids follow. */
  restartWorkerAndApi(extraEnv: Record<string, string>): Promise<void>;
}

export interface AdminLogin { authUrl: string; password: string }

export interface ProductOptions {
  /** The simulator's servers answer SSH (Mgmt Drivers, the cluster engine) and its masters run Kubernetes control planes. */
  machines?: boolean;
}

export async function startProduct(o: ProductOptions = {}): Promise<Product> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nfv-bench-'));
  const logDir = path.join(dataDir, 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  const [temporalPort, vimsimPort, apiPort, keystonePort, heatPort, octaviaPort, sshPort] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  const heatSleepScale = Number(process.env.BENCH_HEAT_SLEEP_SCALE || '1');
  const temporalArgs = (process.env.BENCH_TEMPORAL_ARGS ?? '').split(/\s+/).filter(Boolean);
  const children: Child[] = [];
  let temporal: DevServer | undefined;
  let cloud: RunningCloud | undefined;
  const onSignal = () => void stop().finally(() => process.exit(130));
  /** Everything stopped and the data directory removed (kept, with its logs, when the start failed). */
  const stop = async (keepData = false) => {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    for (const c of children.reverse()) await stopComponent(c, 5_000);
    await cloud?.stop();
    await temporal?.stop();
    if (!keepData) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    temporal = await startDevServer({
      dataDir: path.join(dataDir, 'temporal'), port: temporalPort, uiPort: temporalPort + 1000, namespace: 'default', headless: true,
      log: (m) => fs.appendFileSync(path.join(logDir, 'bench.log'), `${m}\n`),
      stdio: fs.openSync(path.join(logDir, 'temporal.log'), 'a'), extraArgs: temporalArgs,
    });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir, TEMPORAL_ADDRESS: temporal.address, API_PORT: String(apiPort), KEYSTONE_PORT: String(keystonePort),
      HEAT_PORT: String(heatPort), OCTAVIA_PORT: String(octaviaPort), VIMSIM_DELAY_MS: '0', VIMSIM_SSH_PORT: 'off', HEAT_POLL_MS: String(HEAT_POLL_MS), TASK_QUEUE, LOG_LEVEL: 'warn',
      QUOTA_INSTANCES: process.env.QUOTA_INSTANCES ?? '1000000', // a benchmark measures scale, not the per-project quota (100)
      ...(o.machines ? { VIMSIM_SSH_PORT: String(sshPort), MGMT_SSH_PORT: String(sshPort), SSH_CONNECT_DEADLINE_S: '60' } : {}),
    };
    delete env.OS_AUTH_URL;
    cloud = await startCloud({
      dataDir, keystonePort, heatPort, octaviaPort, vimsimPort, apiUrl: `http://127.0.0.1:${apiPort}`, heatSleepScale, env,
      kube: o.machines ? ensureKubeToolchain((m) => fs.appendFileSync(path.join(logDir, 'bench.log'), `${m}\n`)) : undefined,
      log: (m) => fs.appendFileSync(path.join(logDir, 'bench.log'), `${m}\n`),
      stdio: { simulator: fs.openSync(path.join(logDir, 'vimsim.log'), 'a') },
    });
    // The API checks tokens as the nfv service user; the scripts worker (package hooks) gets its own narrow environment.
    const envOf = { worker: env, api: { ...env, ...cloud.apiEnv }, 'scripts-worker': scriptsWorkerEnv(env, dataDir) };
    for (const name of ['worker', 'scripts-worker', 'api'] as const) {
      const c = startComponent(name, envOf[name], fs.openSync(path.join(logDir, `${name}.log`), 'a'));
      children.push(c);
      if (name === 'api') await waitForHttp(`http://127.0.0.1:${apiPort}/healthz`, 120_000, c);
    }
    const pid = (name: string) => children.find((c) => c.name === name)!.proc.pid!;
    const restartWorkerAndApi = async (extraEnv: Record<string, string>) => {
      for (const name of ['worker', 'api'] as const) {
        const i = children.findIndex((c) => c.name === name);
        await stopComponent(children[i], 15_000);
        children[i] = startComponent(name, { ...envOf[name], ...extraEnv }, fs.openSync(path.join(logDir, `${name}.log`), 'a'));
        product.pids[name] = children[i].proc.pid!;
      }
      await waitForHttp(`http://127.0.0.1:${apiPort}/healthz`, 120_000, children.find((c) => c.name === 'api'));
    };
    const product: Product = {
      dataDir, apiUrl: `http://127.0.0.1:${apiPort}`, temporalAddress: temporal.address, temporalArgs, stop, heatSleepScale,
      authUrl: cloud.authUrl, heatUrl: cloud.heatUrl, vimsimUrl: `http://127.0.0.1:${vimsimPort}`, admin: { authUrl: cloud.authUrl, password: cloud.openstack.adminPassword },
      pids: {
        temporal: findPid(['start-dev', String(temporalPort)]) ?? NaN, keystone: cloud.openstack.keystonePid, heat: cloud.openstack.heatPid,
        vimsim: cloud.simulator.proc.pid!, worker: pid('worker'), api: pid('api'),
      },
      restartWorkerAndApi,
    };
    return product;
  } catch (e) {
    await stop(true);
    throw new Error(`${(e as Error).message} (logs in ${logDir})`);
  }
}
