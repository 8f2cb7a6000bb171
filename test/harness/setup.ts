/**
 * The shared harness of the e2e and disruptive tiers: one real Temporal dev
 * server (absolute CLI path), the embedded cloud (real Keystone and Heat from
 * PyPI, the VIM simulator), a worker, the scripts worker and the API, each on
 * a free loopback port, with a fresh data directory. TEST_STORE=postgres runs
 * the product on a throw-away PostgreSQL (DATABASE_URL) instead of its
 * embedded SQLite. Every worker start loads one workflow bundle
 * (WORKFLOW_BUNDLE, built here when not given), not webpack again.
 *
 * As jest's globalSetup it starts the harness for the run, unless
 * HARNESS=off (no harness) or HARNESS=external (`npm test` started it
 * already, for several jest runs: PRODUCT_STATE names it).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCloud, type RunningCloud } from '../../runtime/cloud';
import { startDevServer } from '../../runtime/dev-server';
import { ensureKubeToolchain } from '../../runtime/kube';
import { ensureOpenStackInstalled } from '../../runtime/openstack';
import { scriptsWorkerEnv, startComponent, waitForHttp } from '../../runtime/processes';
import { bundleWorkflows } from '../../worker/workflow-bundle';
import { startPostgres, type TestPostgres } from '../support/postgres';
import { freePort } from './ports';
import { ProductState, writeState } from './state';

/** Heat's fixed 1 s sleeps, scaled: stacks of the tests converge 5-10x faster than with stock Heat. */
const TEST_HEAT_SLEEP_SCALE = process.env.HEAT_TASK_SLEEP_SCALE || '0.05';

export default async function setup(): Promise<void> {
  if (process.env.HARNESS === 'off' || process.env.HARNESS === 'external') return;
  await startHarness();
}

/** Starts the harness; sets PRODUCT_STATE (and API_URL) in this process's environment. */
export async function startHarness(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nfv-test-'));
  const logDir = path.join(dataDir, 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  const harnessLog = (m: string) => fs.appendFileSync(path.join(logDir, 'harness.log'), `${new Date().toISOString()} ${m}\n`);
  process.env.PRODUCT_STATE = path.join(dataDir, 'product.json');
  ensureOpenStackInstalled(harnessLog); // a cold install takes a minute or so, once per machine
  // kube-apiserver and kubectl built from the Go module proxy (5-7 min cold, once per machine), Debian's etcd
  const kube = ensureKubeToolchain(harnessLog);
  if (!process.env.WORKFLOW_BUNDLE) {
    process.env.WORKFLOW_BUNDLE = path.join(dataDir, 'workflow-bundle.js');
    await bundleWorkflows(process.env.WORKFLOW_BUNDLE);
    harnessLog(`workflow bundle ${process.env.WORKFLOW_BUNDLE}`);
  }
  const [temporalPort, vimsimPort, apiPort, sshPort, keystonePort, heatPort, octaviaPort] =
    [await freePort(), await freePort(), await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  // the store first: it is the quickest to start and the product's components need its URL
  let postgres: TestPostgres | undefined;
  if (process.env.TEST_STORE === 'postgres') {
    postgres = await startPostgres('orchestrator');
    (globalThis as Record<string, unknown>).__postgres = postgres;
    harnessLog(`PostgreSQL store at ${postgres.url}`);
  } else if (process.env.TEST_STORE && process.env.TEST_STORE !== 'sqlite') {
    throw new Error(`TEST_STORE must be sqlite or postgres, not ${process.env.TEST_STORE}`);
  }
  let temporal: Awaited<ReturnType<typeof startDevServer>>;
  try {
    temporal = await startDevServer({
      dataDir: path.join(dataDir, 'temporal'), port: temporalPort, uiPort: temporalPort + 1000, namespace: 'default', headless: true,
      log: harnessLog, stdio: fs.openSync(path.join(logDir, 'temporal.log'), 'a'),
    });
  } catch (e) {
    postgres?.stop();
    throw e;
  }
  (globalThis as Record<string, unknown>).__temporal = temporal;
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  // the embedded cloud's admin: a password of this run's own, gone with its DATA_DIR (no account with a known password)
  const adminPassword = crypto.randomBytes(18).toString('base64url');
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    DATA_DIR: dataDir, ADMIN_PASSWORD: adminPassword, TEMPORAL_ADDRESS: temporal.address, API_PORT: String(apiPort), VIMSIM_PORT: String(vimsimPort),
    KEYSTONE_PORT: String(keystonePort), HEAT_PORT: String(heatPort), HEAT_TASK_SLEEP_SCALE: TEST_HEAT_SLEEP_SCALE,
    VIMSIM_DELAY_MS: '100', TASK_QUEUE: 'nfv-lcm-test', LOG_LEVEL: 'info',
    // Heat and cluster waits: the product's own back-off, capped low so that a wait ends within a second or two
    // of what it waits for (with the defaults, 15 s and 10 s, a wait overshoots by up to a third)
    HEAT_POLL_MS: '200', HEAT_POLL_MAX_MS: '1000', CLUSTER_POLL_MAX_MS: '2000',
    // a revoked token stops working within 2 s (test/e2e/identity.test.ts)
    AUTH_TOKEN_CACHE_TTL_S: '2',
    // every test file calls from 127.0.0.1, many with bad tokens on purpose: no per-client failure limit here
    // (test/e2e/auth-abuse.test.ts runs an API of its own with the default one)
    AUTH_FAILURES_PER_CLIENT: '1000000',
    // clusters: health every 2 s, a silent node NotReady after 10 s (test/disruptive/k8s-cluster-vnf.test.ts), replaced 10 s later when auto-healing
    CLUSTER_HEALTH_INTERVAL_S: '2', CLUSTER_NODE_MONITOR_GRACE_PERIOD: '10s', CLUSTER_AUTO_HEAL_AFTER_S: '10',
    // the simulator's servers answer SSH on this port of their own loopback address
    VIMSIM_SSH_PORT: String(sshPort), MGMT_SSH_PORT: String(sshPort), SSH_CONNECT_DEADLINE_S: '30',
    // small enough that test/disruptive/hostile-limits.test.ts streams past it quickly, far above any test package
    PACKAGE_MAX_BYTES: String(32 * 1024 * 1024),
    // every ETSI representation any test makes the API render is checked against its SOL data model (api/schemas/etsi-resources.ts)
    ETSI_CONFORMANCE_CHECK: '1',
    // lists in pages of 40 (the default, 100, is all a project holds under the default quotas): every client that
    // lists follows next links or filters in the store (test/e2e/sol013-paging.test.ts)
    LIST_PAGE_SIZE: '40',
    // the files of a run share the admin project and keep the instances they made: over e2e and a disruptive lane that
    // passed the default quota of 100 (CI #36: every create of the lane's last VNF files refused); test/e2e/quotas.test.ts
    // runs an API of its own with low quotas
    QUOTA_INSTANCES: '100000',
    // TLS material for the coordination client; tests write these files when they need them
    COORD_CLIENT_CERT_HOSTS: '127.0.0.1',
    // the worker's probe and metrics port on a free port; it logs the port (test/e2e/metrics.test.ts reads it there)
    WORKER_METRICS_PORT: '0',
    COORD_CA_FILE: path.join(dataDir, 'coord', 'ca.pem'), COORD_CLIENT_CERT: path.join(dataDir, 'coord', 'client.pem'), COORD_CLIENT_KEY: path.join(dataDir, 'coord', 'client-key.pem'),
  };
  delete env.OS_AUTH_URL;
  delete env.DATABASE_URL;
  if (postgres) env.DATABASE_URL = postgres.url;
  const state: ProductState = {
    dataDir, logDir, apiUrl, vimsimUrl: `http://127.0.0.1:${vimsimPort}`,
    keystoneUrl: `http://127.0.0.1:${keystonePort}/v3`, heatUrl: `http://127.0.0.1:${heatPort}`,
    temporalAddress: temporal.address, adminPassword, env, apiEnv: {}, pids: {},
  };
  let cloud: RunningCloud | undefined;
  try {
    cloud = await startCloud({
      dataDir, keystonePort, heatPort, octaviaPort, vimsimPort, apiUrl, heatSleepScale: Number(TEST_HEAT_SLEEP_SCALE), env, kube, log: harnessLog,
      stdio: { simulator: fs.openSync(path.join(logDir, 'vimsim.log'), 'a') },
    });
    (globalThis as Record<string, unknown>).__cloud = cloud;
    state.apiEnv = cloud.apiEnv;
    state.pids.vimsim = cloud.simulator.proc.pid!;
    cloud.simulator.proc.unref();
    // The scripts worker gets its own narrow environment (no DATA_DIR, no secrets; the channel key, derived before the worker runs).
    const scriptsEnv = scriptsWorkerEnv(env, dataDir);
    for (const name of ['worker', 'scripts-worker', 'api'] as const) {
      const log = fs.openSync(path.join(logDir, `${name}.log`), 'a');
      // the API (only) checks callers' tokens, as the nfv service user
      const c = startComponent(name, name === 'scripts-worker' ? scriptsEnv : name === 'api' ? { ...env, ...cloud.apiEnv } : env, log);
      state.pids[name] = c.proc.pid!;
      writeState(state);
      c.proc.unref();
      if (name === 'api') await waitForHttp(`${state.apiUrl}/healthz`, 120_000, c);
    }
    writeState(state);
  } catch (e) {
    // jest skips globalTeardown when setup fails: stop what was started, show the logs.
    for (const pid of Object.values(state.pids)) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
    await cloud?.stop();
    await temporal.stop();
    postgres?.stop();
    const logs = fs.readdirSync(logDir).map((f) => `--- ${f}\n${fs.readFileSync(path.join(logDir, f), 'utf8').slice(-3000)}`).join('\n');
    // the logs' tails are in the error; nothing of the run is left behind
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw new Error(`${(e as Error).message}\n${logs}`);
  }
  process.env.API_URL = state.apiUrl;
}
