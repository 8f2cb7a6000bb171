/**
 * The run command: `npm start` (scripts/start.ts) brings up the dev server
 * with its Web UI, the embedded cloud (real Keystone and Heat, the simulator),
 * the worker and the API; Ctrl-C stops it all; starting again resumes the
 * operation that was in flight.
 */
import { spawn, ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { KeystoneSession } from '../../infra/openstack/keystone';
import { zipFolder } from '../../samples/build';
import { freePort } from '../harness/ports';

const ROOT = path.resolve(__dirname, '../..');
let dataDir: string;
let env: NodeJS.ProcessEnv;
let api: string;
let simUrl: string;

function start(): { proc: ChildProcess; ready: Promise<void>; exited: Promise<number | null>; output: () => string } {
  let out = '';
  const proc = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
  const ready = new Promise<void>((resolve, reject) => {
    const t = setInterval(() => {
      if (out.includes('ready; Ctrl-C stops everything')) { clearInterval(t); resolve(); }
      if (proc.exitCode !== null) { clearInterval(t); reject(new Error(`start exited: ${out.slice(-3000)}`)); }
    }, 200);
  });
  return { proc, ready, exited, output: () => out };
}

let keystone: KeystoneSession;
let keystoneUrl: string;

/** JSON over HTTP; API and /sim calls carry the embedded Keystone's admin token. */
async function j(method: string, url: string, body?: unknown): Promise<any> {
  // the API and the simulator's /sim (the cloud's admin only)
  const auth: Record<string, string> = (url.startsWith(api) || url.startsWith(`${simUrl}/sim`)) && !url.endsWith('/healthz') ? { 'x-auth-token': (await keystone.getToken()).value } : {};
  const r = await fetch(url, { method, headers: { ...auth, ...(body ? { 'content-type': Buffer.isBuffer(body) ? 'application/zip' : 'application/json' } : {}) }, body: body ? (Buffer.isBuffer(body) ? new Uint8Array(body) : JSON.stringify(body)) : undefined });
  const text = await r.text();
  return { status: r.status, location: r.headers.get('location'), body: text ? JSON.parse(text) : undefined };
}

async function until<T>(fn: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 250));
  }
}

afterAll(() => {
  if (!process.env.KEEP_TEST_DATA) fs.rmSync(dataDir, { recursive: true, force: true });
});

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nfv-start-'));
  const [apiPort, temporalPort, uiPort, simPort, keystonePort, heatPort, octaviaPort, sshPort] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  env = {
    ...process.env, DATA_DIR: dataDir, API_PORT: String(apiPort), TEMPORAL_PORT: String(temporalPort), TEMPORAL_UI_PORT: String(uiPort),
    VIMSIM_PORT: String(simPort), KEYSTONE_PORT: String(keystonePort), HEAT_PORT: String(heatPort), OCTAVIA_PORT: String(octaviaPort), VIMSIM_SSH_PORT: String(sshPort),
    HEAT_TASK_SLEEP_SCALE: '0.05', HEAT_POLL_MS: '200', HEAT_POLL_MAX_MS: '1000', VIMSIM_DELAY_MS: '100', LOG_LEVEL: 'warn',
  };
  delete env.TEMPORAL_ADDRESS;
  delete env.OS_AUTH_URL;
  delete env.ADMIN_PASSWORD; // the first start generates one
  api = `http://127.0.0.1:${apiPort}`;
  keystoneUrl = `http://127.0.0.1:${keystonePort}/v3`;
  simUrl = `http://127.0.0.1:${simPort}`;
});

test('npm start runs everything; Ctrl-C stops it; a restart resumes the op in flight', async () => {
  let run = start();
  await run.ready;
  expect(run.output()).toContain(api);

  // the admin's password was generated, kept 0600 under DATA_DIR with an openrc file, whose place npm start printed
  const openrc = path.join(dataDir, 'admin-openrc');
  expect(run.output()).toContain(`admin's credentials: . ${openrc}`);
  for (const f of [openrc, path.join(dataDir, 'openstack', 'admin-password')]) expect([f, fs.statSync(f).mode & 0o777]).toEqual([f, 0o600]);
  const password = /^export OS_PASSWORD='([^']+)'$/m.exec(fs.readFileSync(openrc, 'utf8'))![1];
  expect(password).toBe(fs.readFileSync(path.join(dataDir, 'openstack', 'admin-password'), 'utf8').trim());
  expect(password.length).toBeGreaterThanOrEqual(24);
  await expect(new KeystoneSession({ authUrl: keystoneUrl, username: 'admin', password: 'devstack', project: 'admin' }).getToken()).rejects.toThrow(/401/);
  keystone = new KeystoneSession({ authUrl: keystoneUrl, username: 'admin', password, project: 'admin' });
  expect((await j('GET', `${api}/healthz`)).status).toBe(200);
  // the Temporal Web UI, for the operator with the password under DATA_DIR; the gRPC frontend only with the product's client certificate
  const uiUrl = `http://127.0.0.1:${env.TEMPORAL_UI_PORT}/`;
  expect((await fetch(uiUrl)).status).toBe(401);
  const uiPassword = fs.readFileSync(path.join(dataDir, 'temporal', 'ui-password'), 'utf8').trim();
  expect((await fetch(uiUrl, { headers: { authorization: `Basic ${Buffer.from(`operator:${uiPassword}`).toString('base64')}` } })).status).toBe(200);
  expect(run.output()).toContain(`user operator, password in ${path.join(dataDir, 'temporal', 'ui-password')}`);
  const temporalAddress = `127.0.0.1:${env.TEMPORAL_PORT}`;
  await expect(Connection.connect({ address: temporalAddress, connectTimeout: 2000 }).then((c) => c.workflowService.getSystemInfo({}))).rejects.toThrow();
  const tlsDir = path.join(dataDir, 'temporal', 'tls');
  const ca = fs.readFileSync(path.join(tlsDir, 'ca.crt'));
  // TLS without the product's client certificate: refused in the handshake
  await expect(Connection.connect({ address: temporalAddress, connectTimeout: 2000, tls: { serverNameOverride: 'localhost', serverRootCACertificate: ca } }).then((c) => c.workflowService.getSystemInfo({}))).rejects.toThrow();
  const mtls = await Connection.connect({ address: temporalAddress, tls: { serverNameOverride: 'localhost', serverRootCACertificate: ca, clientCertPair: { crt: fs.readFileSync(path.join(tlsDir, 'nfv.crt')), key: fs.readFileSync(path.join(tlsDir, 'nfv.key')) } } });
  expect((await mtls.workflowService.getSystemInfo({})).serverVersion).toMatch(/^\d/);
  await mtls.close();
  expect(fs.existsSync(path.join(dataDir, 'temporal', 'temporal.sqlite'))).toBe(true);

  // Put an instantiate in flight: the VIM holds the stack create.
  const pkg = (await j('POST', `${api}/vnfpkgm/v1/vnf_packages`, {})).body;
  expect((await j('PUT', `${api}/vnfpkgm/v1/vnf_packages/${pkg.id}/package_content`, zipFolder(path.join(ROOT, 'samples/two_vdu_vnf')))).status).toBe(202);
  const vnfdId = await until(async () => (await j('GET', `${api}/vnfpkgm/v1/vnf_packages/${pkg.id}`)).body.vnfdId);
  const inst = (await j('POST', `${api}/vnflcm/v1/vnf_instances`, { vnfdId })).body;
  await j('POST', `${simUrl}/sim/faults`, { target: 'server', operation: 'create', mode: 'hang', times: 1 });
  const r = await j('POST', `${api}/vnflcm/v1/vnf_instances/${inst.id}/instantiate`, {
    flavourId: 'simple', extVirtualLinks: [{ id: 'n', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
  });
  expect(r.status).toBe(202);
  const opUrl = `${api}/vnflcm/v1/vnf_lcm_op_occs/${String(r.location).split('/').pop()}`;
  await until(async () => ((await j('GET', opUrl)).body.currentStep === 'create stack' ? true : undefined));

  run.proc.kill('SIGINT');
  expect(await run.exited).toBe(0);
  expect(run.output()).toContain('[start] stopped');
  await expect(fetch(`${api}/healthz`)).rejects.toThrow();

  run = start();
  await run.ready;
  expect((await j('GET', opUrl)).body.operationState).toBe('PROCESSING');
  await j('DELETE', `${simUrl}/sim/faults`);
  const done = await until(async () => {
    const op = (await j('GET', opUrl)).body;
    return ['COMPLETED', 'FAILED_TEMP'].includes(op.operationState) ? op : undefined;
  }, 90_000);
  expect(done.operationState).toBe('COMPLETED');
  expect((await j('GET', `${api}/vnflcm/v1/vnf_instances/${inst.id}`)).body.instantiationState).toBe('INSTANTIATED');
  run.proc.kill('SIGINT');
  expect(await run.exited).toBe(0);
}, 300_000);

test('a first start whose Kubernetes toolchain is not built serves at once, builds it in the background, and Ctrl-C stops the build', async () => {
  const tools = fs.mkdtempSync(path.join(os.tmpdir(), 'nfv-start-kube-'));
  const saved = env;
  // an empty Go build cache too: with this machine's, the build would be done in seconds, before the API is up
  env = { ...env, KUBE_TOOLS_DIR: tools, GOCACHE: path.join(tools, 'go-build-cache') };
  try {
    const run = start();
    await run.ready;
    expect(run.output()).toContain('Kubernetes toolchain: not built yet; building it in the background');
    // the build's progress lines, with the time since it began
    await until(async () => (/Kubernetes toolchain: building kube-apiserver and kubectl v1\.37\.2 .*\(\d+ s\)/.test(run.output()) ? true : undefined), 30_000);
    expect(run.output()).not.toContain('Kubernetes toolchain: ready');
    expect((await j('GET', `${api}/healthz`)).status).toBe(200);
    expect((await j('GET', `${api}/vnflcm/v1/vnf_instances`)).status).toBe(200);
    /** This start's processes but itself (the build's node process, build.sh, go, compile; the components): they inherit its KUBE_TOOLS_DIR. */
    const building = () => fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).flatMap((p) => {
      try {
        const cmdline = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ');
        const ours = fs.readFileSync(`/proc/${p}/environ`, 'utf8').split('\0').includes(`KUBE_TOOLS_DIR=${tools}`) && !cmdline.includes('scripts/start.ts');
        return ours || fs.readlinkSync(`/proc/${p}/cwd`).startsWith(tools) ? [`${p} ${cmdline.slice(0, 120)}`] : [];
      } catch {
        return [];
      }
    });
    expect(building().some((p) => p.includes('runtime/kube/build-main'))).toBe(true);
    run.proc.kill('SIGINT');
    expect(await run.exited).toBe(0);
    await until(async () => (building().length === 0 ? true : undefined), 20_000).catch(() => undefined);
    expect(building()).toEqual([]);
  } finally {
    env = saved;
    fs.rmSync(tools, { recursive: true, force: true });
  }
}, 300_000);
