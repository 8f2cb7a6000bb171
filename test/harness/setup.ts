/**
 * jest globalSetup: one real Temporal dev server (absolute CLI path), the VIM
 * simulator, a worker and the API, each on a free loopback port, with a fresh
 * data directory. HARNESS=off skips it (pure unit test runs).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevServer } from '../../runtime/dev-server';
import { startComponent, waitForHttp } from '../../runtime/processes';
import { freePort } from './ports';
import { ProductState, writeState } from './state';

export default async function setup(): Promise<void> {
  if (process.env.HARNESS === 'off') return;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nfv-test-'));
  const logDir = path.join(dataDir, 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  process.env.PRODUCT_STATE = path.join(dataDir, 'product.json');
  const [temporalPort, vimsimPort, apiPort, sshPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const temporal = await startDevServer({
    dataDir: path.join(dataDir, 'temporal'), port: temporalPort, uiPort: temporalPort + 1000, namespace: 'default', headless: true,
    log: (m) => fs.appendFileSync(path.join(logDir, 'harness.log'), `${m}\n`),
    stdio: fs.openSync(path.join(logDir, 'temporal.log'), 'a'),
  });
  (globalThis as Record<string, unknown>).__temporal = temporal;
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    DATA_DIR: dataDir, TEMPORAL_ADDRESS: temporal.address, API_PORT: String(apiPort), VIMSIM_PORT: String(vimsimPort),
    VIMSIM_DELAY_MS: '100', HEAT_POLL_MS: '200', TASK_QUEUE: 'nfv-lcm-test', LOG_LEVEL: 'info',
    // the simulator's servers answer SSH on this port of their own loopback address
    VIMSIM_SSH_PORT: String(sshPort), MGMT_SSH_PORT: String(sshPort), SSH_CONNECT_DEADLINE_S: '30',
    // TLS material for the coordination client; tests write these files when they need them
    COORD_CA_FILE: path.join(dataDir, 'coord', 'ca.pem'), COORD_CLIENT_CERT: path.join(dataDir, 'coord', 'client.pem'), COORD_CLIENT_KEY: path.join(dataDir, 'coord', 'client-key.pem'),
  };
  const state: ProductState = {
    dataDir, logDir, apiUrl: `http://127.0.0.1:${apiPort}`, vimsimUrl: `http://127.0.0.1:${vimsimPort}`,
    temporalAddress: temporal.address, env, pids: {},
  };
  try {
    for (const name of ['vimsim', 'worker', 'api'] as const) {
      const log = fs.openSync(path.join(logDir, `${name}.log`), 'a');
      const c = startComponent(name, env, log);
      state.pids[name] = c.proc.pid!;
      writeState(state);
      c.proc.unref();
      if (name === 'vimsim') await waitForHttp(`${state.vimsimUrl}/healthz`, 60_000, c);
      if (name === 'api') await waitForHttp(`${state.apiUrl}/healthz`, 120_000, c);
    }
  } catch (e) {
    // jest skips globalTeardown when setup fails: stop what was started, show the logs.
    for (const pid of Object.values(state.pids)) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
    await temporal.stop();
    const logs = fs.readdirSync(logDir).map((f) => `--- ${f}\n${fs.readFileSync(path.join(logDir, f), 'utf8').slice(-3000)}`).join('\n');
    throw new Error(`${(e as Error).message}\n${logs}`);
  }
  process.env.API_URL = state.apiUrl;
}
