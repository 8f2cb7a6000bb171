/**
 * The product under measurement, started like test/harness/setup.ts does: a
 * Temporal dev server, the VIM simulator (zero delay), a worker and the API,
 * each on a free loopback port with a fresh data directory.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DevServer, startDevServer } from '../runtime/dev-server';
import { Child, startComponent, stopComponent, waitForHttp } from '../runtime/processes';
import { freePort } from '../test/harness/ports';
import { findPid } from './procs';

export const TASK_QUEUE = 'nfv-lcm-bench';
export const HEAT_POLL_MS = 50;

export interface Product {
  dataDir: string;
  apiUrl: string;
  temporalAddress: string;
  /** Processes of the product: temporal (dev server), vimsim, worker, api. */
  pids: Record<'temporal' | 'vimsim' | 'worker' | 'api', number>;
  /** Extra dev server flags this run used (BENCH_TEMPORAL_ARGS). */
  temporalArgs: string[];
  /** Stops every process (also done on SIGINT/SIGTERM). */
  stop(): Promise<void>;
}

export async function startProduct(): Promise<Product> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nfv-bench-'));
  const logDir = path.join(dataDir, 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  const [temporalPort, vimsimPort, apiPort] = [await freePort(), await freePort(), await freePort()];
  const temporalArgs = (process.env.BENCH_TEMPORAL_ARGS ?? '').split(/\s+/).filter(Boolean);
  const children: Child[] = [];
  let temporal: DevServer | undefined;
  const onSignal = () => void stop().finally(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(130);
  });
  const stop = async () => {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    for (const c of children.reverse()) await stopComponent(c, 5_000);
    await temporal?.stop();
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
      DATA_DIR: dataDir, TEMPORAL_ADDRESS: temporal.address, API_PORT: String(apiPort), VIMSIM_PORT: String(vimsimPort),
      VIMSIM_DELAY_MS: '0', HEAT_POLL_MS: String(HEAT_POLL_MS), TASK_QUEUE, LOG_LEVEL: 'warn',
    };
    for (const name of ['vimsim', 'worker', 'api'] as const) {
      const c = startComponent(name, env, fs.openSync(path.join(logDir, `${name}.log`), 'a'));
      children.push(c);
      if (name === 'vimsim') await waitForHttp(`http://127.0.0.1:${vimsimPort}/healthz`, 60_000, c);
      if (name === 'api') await waitForHttp(`http://127.0.0.1:${apiPort}/healthz`, 120_000, c);
    }
    const pid = (name: string) => children.find((c) => c.name === name)!.proc.pid!;
    return {
      dataDir, apiUrl: `http://127.0.0.1:${apiPort}`, temporalAddress: temporal.address, temporalArgs, stop,
      pids: { temporal: findPid(['start-dev', String(temporalPort)]) ?? NaN, vimsim: pid('vimsim'), worker: pid('worker'), api: pid('api') },
    };
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message} (logs in ${logDir})`);
  }
}
