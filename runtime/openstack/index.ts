/**
 * The embedded OpenStack of the default deployment: a real Keystone 30, Heat
 * 27 and Octavia 19's API (from PyPI, no RabbitMQ) with state under
 * <dataDir>/openstack, a catalog that points Nova/Neutron/Glance/Cinder at the
 * VIM simulator and the NFV and container-infra services at the product API.
 * Order: Keystone -> entities and catalog -> Heat and Octavia side by side;
 * stop: Octavia and Heat first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { syncEntities, catalog } from './entities';
import { heatMarker, prepareHeat, startHeat, HeatInput } from './heat';
import { ensureOpenStackInstalled, pinsHash } from './install';
import { writeAdminOpenrc } from '../../common/embedded-admin';
import { keystoneMarker, prepareKeystone, startKeystone, KeystoneInput } from './keystone';
import { octaviaMarker, OctaviaInput, prepareOctavia, startOctavia } from './octavia';
import { assertPortFree, killGroupSync, killLeftovers, pidAlive, Proc, running, stopProc } from './procs';
import { heatAuthEncryptionKey, layout, loadAdminPassword, loadServiceUsers } from './state';

export { ensureOpenStackInstalled } from './install';
export { ADMIN_USER, ADMIN_PROJECT } from './keystone';

export interface EmbeddedCloudOptions {
  dataDir: string; // state goes to <dataDir>/openstack/{keystone,heat}/ (DBs, fernet keys, confs, logs)
  keystonePort: number;
  heatPort: number;
  /** Octavia's API (catalog type load-balancer); default 9876, Octavia's own. */
  octaviaPort?: number;
  /** HEAT_TASK_SLEEP_SCALE for the launcher; default 1 (stock); tests use ~0.05 */
  heatSleepScale?: number;
  /** VIM simulator base URL: compute <sim>/compute/v2.1, network <sim>/network, image <sim>/image, volumev3 <sim>/volume/v3/$(project_id)s */
  simulatorUrl: string;
  /** Product API base URL: nfv-orchestration <api>, container-infra <api>/v1 */
  apiUrl: string;
  log?: (m: string) => void;
  /** fd for the children's stdout/stderr; default: files under <dataDir>/openstack/logs */
  stdio?: number;
  /** Heat DB, e.g. postgresql+psycopg2://u:p@127.0.0.1/heat (needs psycopg2-binary in the venv); default SQLite */
  heatDatabaseUrl?: string;
  /** The admin's password; default ADMIN_PASSWORD, else generated at the first start (common/embedded-admin.ts). */
  adminPassword?: string;
  /** Keystone token lifetime; default 3600 */
  tokenExpirationSec?: number;
  /** Sets Heat's max_nova_api_microversion (skips Nova version discovery); default unset */
  novaMicroversion?: string;
  /** Called when Keystone, Heat or Octavia exits without being asked to (after it is logged). */
  onUnexpectedExit?: (name: ServiceName, code: number | null, signal: NodeJS.Signals | null) => void;
}

type ServiceName = 'keystone' | 'heat' | 'octavia';
type Creds = { username: string; password: string; project: 'service'; domain: 'Default' };

export interface EmbeddedCloud {
  authUrl: string; // http://127.0.0.1:<keystonePort>/v3
  heatUrl: string; // http://127.0.0.1:<heatPort>
  octaviaUrl: string; // http://127.0.0.1:<octaviaPort>
  /** The admin's password, and DATA_DIR/admin-openrc (0600) that holds it as OS_* variables. */
  adminPassword: string;
  openrc: string;
  /** In project `service` with roles admin + service; kept in <dataDir>/openstack/service-users.json (0600). */
  serviceUsers: Record<'vimsim' | 'nfv', Creds>;
  keystonePid: number;
  heatPid: number;
  octaviaPid: number;
  /** kill Heat (default SIGKILL) and start it again on the same state; resolves when it answers again. */
  restartHeat(opts?: { signal?: NodeJS.Signals }): Promise<void>;
  /** SIGTERM all (Octavia and Heat first), SIGKILL after a grace period. */
  stop(): Promise<void>;
}

/**
 * Children's environment: no OS_* of the operator's shell, no proxy for loopback, quiet Python,
 * no __pycache__ next to our .py files in the source tree.
 */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^OS_/.test(k) && k !== 'PYTHONHOME' && k !== 'PYTHONPATH') env[k] = v;
  const noProxy = ['127.0.0.1', 'localhost', env.NO_PROXY || env.no_proxy].filter(Boolean).join(',');
  return { ...env, NO_PROXY: noProxy, no_proxy: noProxy, PYTHONWARNINGS: 'ignore', PYTHONNOUSERSITE: '1', PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' };
}

/** One live owner per dataDir: a second start would kill the first one's children as leftovers. */
function claimDataDir(file: string): void {
  const owner = Number(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : 0);
  if (owner && owner !== process.pid && pidAlive(owner)) {
    throw new Error(`${path.dirname(file)} is in use by the embedded cloud of process ${owner}`);
  }
  fs.writeFileSync(file, String(process.pid));
}

export async function startEmbeddedCloud(o: EmbeddedCloudOptions): Promise<EmbeddedCloud> {
  const log = o.log ?? (() => undefined);
  const venv = ensureOpenStackInstalled(log);
  const l = layout(o.dataDir);
  const users = loadServiceUsers(l);
  const env = childEnv();
  const pins = pinsHash();
  const authUrl = `http://127.0.0.1:${o.keystonePort}/v3`;
  const heatUrl = `http://127.0.0.1:${o.heatPort}`;
  const octaviaPort = o.octaviaPort ?? 9876;
  const octaviaUrl = `http://127.0.0.1:${octaviaPort}`;

  claimDataDir(l.ownerPid);
  try {
    await killLeftovers(l.octaviaPid, octaviaMarker(l), log);
    await killLeftovers(l.heatPid, heatMarker(l), log);
    await killLeftovers(l.keystonePid, keystoneMarker(l), log);
    await assertPortFree(o.keystonePort, 'keystone');
    await assertPortFree(o.heatPort, 'heat');
    await assertPortFree(octaviaPort, 'octavia');
  } catch (e) {
    fs.rmSync(l.ownerPid, { force: true });
    throw e;
  }

  const adminPassword = loadAdminPassword(l, o.adminPassword ?? process.env.ADMIN_PASSWORD);
  const ks: KeystoneInput = {
    venv, l, port: o.keystonePort, tokenExpirationSec: o.tokenExpirationSec ?? 3600, pinsHash: pins, adminPassword, env, stdio: o.stdio, log,
  };
  const hi: HeatInput = {
    venv, l, port: o.heatPort, databaseUrl: o.heatDatabaseUrl, sleepScale: o.heatSleepScale ?? 1, pinsHash: pins, env, stdio: o.stdio, log,
    conf: { keystoneUrl: `http://127.0.0.1:${o.keystonePort}`, authEncryptionKey: heatAuthEncryptionKey(l), users, novaMicroversion: o.novaMicroversion },
  };

  const oi: OctaviaInput = {
    venv, l, pinsHash: pins, env, stdio: o.stdio, log,
    conf: { keystoneUrl: `http://127.0.0.1:${o.keystonePort}`, port: octaviaPort, simulatorUrl: o.simulatorUrl, users },
  };

  let keystone: Proc | undefined;
  let heat: Proc | undefined;
  let octavia: Proc | undefined;
  const expected = new Set<Proc>(); // exits we asked for
  let started = false; // during startup a death rejects startEmbeddedCloud instead
  const watch = (p: Proc, name: ServiceName) => {
    void p.exited.then(({ code, signal }) => {
      if (expected.has(p)) return;
      log(`${name} (pid ${p.pid}) exited unexpectedly (code ${code}, signal ${signal}); logs in ${l.logs}`);
      if (started) o.onUnexpectedExit?.(name, code, signal);
    });
  };
  // last resort if the parent exits without stop(): do not leave orphans on the ports
  const onExit = () => {
    for (const p of [octavia, heat, keystone]) if (p && running(p)) killGroupSync(p.pid);
  };
  process.on('exit', onExit);
  let stopped = false;
  const stopAll = async () => {
    stopped = true;
    for (const p of [octavia, heat]) if (p) expected.add(p);
    await Promise.all([octavia, heat].map((p) => p && stopProc(p, 10_000)));
    if (keystone) (expected.add(keystone), await stopProc(keystone, 10_000));
    for (const f of [l.octaviaPid, l.heatPid, l.keystonePid, l.ownerPid]) fs.rmSync(f, { force: true });
    process.off('exit', onExit);
  };

  try {
    const t0 = Date.now();
    const heatPrep = prepareHeat(hi); // db_sync needs no Keystone: overlap it with Keystone's start
    heatPrep.catch(() => undefined); // awaited below; avoid an unhandled rejection meanwhile
    const octaviaPrep = prepareOctavia(oi); // its schema needs no Keystone either
    octaviaPrep.catch(() => undefined);
    await prepareKeystone(ks);
    keystone = await startKeystone(ks);
    watch(keystone, 'keystone');
    const t1 = Date.now();
    await syncEntities({
      authUrl, adminPassword, users, log,
      catalog: catalog({ keystonePort: o.keystonePort, heatPort: o.heatPort, octaviaPort, simulatorUrl: o.simulatorUrl, apiUrl: o.apiUrl }),
    });
    log(`keystone: entities + catalog in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
    // side by side; both settled before a failure stops everything (none left running unseen)
    const results = await Promise.allSettled([
      heatPrep.then(() => startHeat(hi)).then((p) => watch((heat = p), 'heat')),
      octaviaPrep.then(() => startOctavia(oi)).then((p) => watch((octavia = p), 'octavia')),
    ]);
    for (const r of results) if (r.status === 'rejected') throw r.reason;
    started = true;
    log(`embedded OpenStack up in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${authUrl}, ${heatUrl}, ${octaviaUrl}`);
  } catch (e) {
    await stopAll();
    throw e;
  }

  const pick = (n: 'vimsim' | 'nfv'): Creds => ({ username: users[n].username, password: users[n].password, project: 'service', domain: 'Default' });
  const openrc = writeAdminOpenrc(path.dirname(l.root), authUrl, adminPassword);
  return {
    authUrl,
    heatUrl,
    octaviaUrl,
    adminPassword,
    openrc,
    serviceUsers: { vimsim: pick('vimsim'), nfv: pick('nfv') },
    get keystonePid() {
      return keystone!.pid;
    },
    get heatPid() {
      return heat!.pid;
    },
    get octaviaPid() {
      return octavia!.pid;
    },
    async restartHeat(opts = {}) {
      if (stopped) throw new Error('restartHeat: the embedded cloud was stopped');
      const old = heat!;
      expected.add(old);
      await stopProc(old, 10_000, opts.signal ?? 'SIGKILL');
      heat = await startHeat(hi);
      watch(heat, 'heat');
    },
    stop: stopAll,
  };
}
