/**
 * TLS and mTLS to Temporal (security review M6): the product's connections
 * (the API's and worker's Client, the worker's NativeConnection) take their
 * transport security from TEMPORAL_TLS, TEMPORAL_TLS_CA, TEMPORAL_TLS_CERT +
 * TEMPORAL_TLS_KEY and TEMPORAL_TLS_SERVER_NAME, and bad settings stop a
 * process at start with a message naming the variable.
 *
 * The server side: a second Temporal dev server (the CLI's, plaintext on a
 * free loopback port; `temporal server start-dev` has no TLS settings at
 * all) behind a TLS-terminating proxy on another free loopback port that
 * requires a client certificate from a test CA (test/support/tls-proxy.ts).
 * The frontend certificate names only `temporal.test`, so connecting to
 * 127.0.0.1 works only with TEMPORAL_TLS_SERVER_NAME. Needs no harness.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig, type Config } from '../../common/config';
import {
  connectClient, ensureSearchAttributes, temporalConnectionSettings, temporalTlsFromEnv, TemporalTlsConfigError,
} from '../../common/temporal';
import { startDevServer, type DevServer } from '../../runtime/dev-server';
import { startComponent, stopComponent, type Child } from '../../runtime/processes';
import { freePort } from '../harness/ports';
import { createTestCa } from '../support/tls';
import { startTlsProxy, type TlsProxy } from '../support/tls-proxy';

jest.setTimeout(120_000);

let dir: string;
let dev: DevServer;
let proxy: TlsProxy;
const files: Record<string, string> = {};
const clients: Client[] = [];
let child: Child | undefined;

const write = (name: string, content: string) => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, content, { mode: 0o600 });
  files[name] = f;
  return f;
};

/** The right settings: our CA, the worker's client certificate, the frontend's name. */
const good = () => ({
  TEMPORAL_TLS_CA: files['ca.pem'], TEMPORAL_TLS_CERT: files['client.pem'], TEMPORAL_TLS_KEY: files['client-key.pem'],
  TEMPORAL_TLS_SERVER_NAME: 'temporal.test',
});
const cfg = (address = proxy.address): Config => ({ ...loadConfig(), temporalAddress: address, externalTemporal: true, temporalNamespace: 'default' });

async function connectFails(env: NodeJS.ProcessEnv): Promise<Error> {
  const before = proxy.handshakes.length;
  try {
    clients.push(await connectClient(cfg(), { env, connectTimeout: 2000 }));
  } catch (e) {
    expect(proxy.handshakes.length).toBeGreaterThan(before); // it did reach the TLS port
    return e as Error;
  }
  throw new Error('expected the connection to fail');
}

async function nativeFails(env: NodeJS.ProcessEnv): Promise<Error> {
  const s = temporalConnectionSettings(cfg(), env);
  try {
    const c = await NativeConnection.connect({ address: s.address, ...(s.tls ? { tls: s.tls } : {}) });
    await c.close();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected the native connection to fail');
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nfv-temporal-tls-'));
  const port = await freePort();
  dev = await startDevServer({
    dataDir: path.join(dir, 'temporal'), port, uiPort: port + 1000, namespace: 'default', headless: true,
    stdio: fs.openSync(path.join(dir, 'temporal.log'), 'a'),
  });
  const ca = createTestCa('temporal test CA');
  const other = createTestCa('some other CA');
  const server = ca.issueServer({ ips: [], dns: ['temporal.test'], cn: 'temporal.test' });
  const client = ca.issueClient('nfv-worker');
  const rogue = other.issueClient('nfv-worker');
  write('ca.pem', ca.cert);
  write('client.pem', client.cert);
  write('client-key.pem', client.key);
  write('rogue.pem', rogue.cert);
  write('rogue-key.pem', rogue.key);
  write('other-ca.pem', other.cert);
  proxy = await startTlsProxy({ target: { host: '127.0.0.1', port }, cert: server.cert, key: server.key, clientCa: ca.cert });
}, 120_000);

afterAll(async () => {
  if (child) await stopComponent(child, 5000);
  await Promise.all(clients.map((c) => c.connection.close().catch(() => undefined)));
  await proxy?.close();
  await dev?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('against a frontend that requires TLS and a client certificate', () => {
  test('the right CA, client certificate and server name: the product client starts, describes and terminates a workflow', async () => {
    const client = await connectClient(cfg(), { env: good() });
    clients.push(client);
    const ns = await client.workflowService.describeNamespace({ namespace: 'default' });
    expect(ns.namespaceInfo?.name).toBe('default');
    await ensureSearchAttributes(client, 'default'); // the operator service over mTLS too
    const workflowId = `tls-probe-${Date.now()}`;
    const handle = await client.workflow.start('tlsProbe', { taskQueue: 'tls-probe', workflowId });
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await handle.terminate('test done');
    expect((await handle.describe()).status.name).toBe('TERMINATED');
    const last = proxy.handshakes.filter((h) => h.ok).at(-1);
    expect(last).toMatchObject({ ok: true, alpn: 'h2', servername: 'temporal.test', clientCn: 'nfv-worker' });
  });

  test('the worker process (NativeConnection and Client) polls its task queue over mTLS', async () => {
    const dataDir = path.join(dir, 'worker-data');
    const logFile = path.join(dir, 'worker.log');
    const taskQueue = 'nfv-lcm-tls-test';
    child = startComponent('worker', {
      PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, TEMPORAL_ADDRESS: proxy.address,
      TEMPORAL_NAMESPACE: 'default', TASK_QUEUE: taskQueue, LOG_LEVEL: 'info', ...good(),
    }, fs.openSync(logFile, 'a'));
    const client = await connectClient(cfg(), { env: good() });
    clients.push(client);
    const deadline = Date.now() + 110_000;
    let pollers = 0;
    while (Date.now() < deadline && child.proc.exitCode === null) {
      const r = await client.workflowService.describeTaskQueue({ namespace: 'default', taskQueue: { name: taskQueue }, taskQueueType: 1 });
      pollers = r.pollers?.length ?? 0;
      if (pollers > 0) break;
      await new Promise((r2) => setTimeout(r2, 500));
    }
    const log = fs.readFileSync(logFile, 'utf8');
    expect({ pollers, exit: child.proc.exitCode }).toEqual({ pollers: 1, exit: null });
    expect(log).toMatch(/"temporalSecurity":"mTLS \(CA [^"]*ca\.pem, client CN=nfv-worker, server name temporal\.test\)".*"msg":"worker started"/);
    await stopComponent(child, 10_000);
    child = undefined;
  }, 130_000);

  test('without a client certificate the handshake is refused, with a message saying so', async () => {
    const env = { TEMPORAL_TLS_CA: files['ca.pem'], TEMPORAL_TLS_SERVER_NAME: 'temporal.test' };
    const e = await connectFails(env);
    expect(e.message).toMatch(/^cannot connect to Temporal at 127\.0\.0\.1:\d+ over TLS \(CA .*ca\.pem, server name temporal\.test\): .*the server refused the client certificate \(none was given: set TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY\)/);
    expect(proxy.handshakes.at(-1)).toMatchObject({ ok: false, error: expect.stringMatching(/peer did not return a certificate/) });
    // In TLS 1.3 the server's refusal comes after the client has finished its side of the handshake: the
    // native client reads the certificate_required alert or, when its first write wins, a closed pipe or reset.
    const before = proxy.handshakes.length;
    await nativeFails(env); // refused; what the Rust client says depends on that race, the proxy says why
    // The proxy records its side of the refusal when its socket reports it, which can be after the client gave up.
    const refused = (h: { ok: boolean; error?: string }) => !h.ok && /peer did not return a certificate/.test(h.error ?? '');
    for (let t = Date.now(); !proxy.handshakes.slice(before).some(refused) && Date.now() - t < 5_000;) await new Promise((r) => setTimeout(r, 100));
    expect(proxy.handshakes.slice(before).some(refused)).toBe(true);
  });

  test('a client certificate from another CA is refused', async () => {
    const env = { ...good(), TEMPORAL_TLS_CERT: files['rogue.pem'], TEMPORAL_TLS_KEY: files['rogue-key.pem'] };
    const e = await connectFails(env);
    expect(e.message).toMatch(/over mTLS \(.*client CN=nfv-worker.*\): .*does not accept the client certificate/);
    expect(proxy.handshakes.some((h) => !h.ok && /certificate/i.test(h.error ?? ''))).toBe(true);
    expect(proxy.handshakes.filter((h) => h.ok).every((h) => h.clientCn === 'nfv-worker')).toBe(true);
    await nativeFails(env);
  });

  test('the frontend certificate is verified: another CA, the IP without TEMPORAL_TLS_SERVER_NAME, a wrong name, system roots', async () => {
    expect((await connectFails({ ...good(), TEMPORAL_TLS_CA: files['other-ca.pem'] })).message)
      .toMatch(/does not verify against TEMPORAL_TLS_CA/);
    expect((await connectFails({ ...good(), TEMPORAL_TLS_SERVER_NAME: '' })).message)
      .toMatch(/the server certificate is not valid for "127\.0\.0\.1".*TEMPORAL_TLS_SERVER_NAME sets the name to verify/);
    expect((await connectFails({ ...good(), TEMPORAL_TLS_SERVER_NAME: 'other.test' })).message)
      .toMatch(/not valid for "other\.test"/);
    expect((await connectFails({ TEMPORAL_TLS: 'true', TEMPORAL_TLS_SERVER_NAME: 'temporal.test' })).message)
      .toMatch(/over TLS \(system CA roots, server name temporal\.test\): .*does not verify against the system CA roots/);
    expect((await nativeFails({ ...good(), TEMPORAL_TLS_SERVER_NAME: '' })).message).toMatch(/NotValidForName/);
  });

  test('a plaintext client cannot use the TLS port, and a TLS client says when the server is plaintext', async () => {
    expect((await connectFails({})).message).toMatch(/over plaintext: .*if it expects TLS, set TEMPORAL_TLS=true or TEMPORAL_TLS_CA/);
    let e: Error | undefined;
    try {
      clients.push(await connectClient(cfg(dev.address), { env: good(), connectTimeout: 2000 }));
    } catch (x) { e = x as Error; }
    expect(e?.message).toMatch(/the server does not speak TLS/);
  });
});

describe('settings', () => {
  const t = (env: NodeJS.ProcessEnv) => () => temporalTlsFromEnv(env);

  test('nothing set, or TEMPORAL_TLS=false: plaintext', () => {
    expect(temporalTlsFromEnv({})).toBeUndefined();
    expect(temporalTlsFromEnv({ TEMPORAL_TLS: 'false' })).toBeUndefined();
    expect(temporalConnectionSettings(cfg('temporal.example:7233'), {})).toEqual({ address: 'temporal.example:7233', security: 'plaintext' });
  });

  test('what each setting turns into', () => {
    expect(temporalTlsFromEnv({ TEMPORAL_TLS: 'true' })).toEqual({ config: {}, description: 'TLS (system CA roots)' });
    expect(temporalTlsFromEnv({ TEMPORAL_TLS_SERVER_NAME: 'temporal.test' })).toEqual({ config: { serverNameOverride: 'temporal.test' }, description: 'TLS (system CA roots, server name temporal.test)' });
    const full = temporalTlsFromEnv(good())!;
    expect(full.description).toBe(`mTLS (CA ${files['ca.pem']}, client CN=nfv-worker, server name temporal.test)`);
    expect(Buffer.from(full.config.serverRootCACertificate!).toString()).toBe(fs.readFileSync(files['ca.pem'], 'utf8'));
    expect(Buffer.from(full.config.clientCertPair!.crt).toString()).toBe(fs.readFileSync(files['client.pem'], 'utf8'));
    expect(Buffer.from(full.config.clientCertPair!.key).toString()).toBe(fs.readFileSync(files['client-key.pem'], 'utf8'));
  });

  test('bad settings are errors naming the variable', () => {
    const cases: Array<[NodeJS.ProcessEnv, RegExp]> = [
      [{ TEMPORAL_TLS: 'yes' }, /^TEMPORAL_TLS must be "true" or "false", got "yes"$/],
      [{ TEMPORAL_TLS: 'false', TEMPORAL_TLS_CA: files['ca.pem'] }, /^TEMPORAL_TLS=false contradicts TEMPORAL_TLS_CA/],
      [{ TEMPORAL_TLS_CA: path.join(dir, 'missing.pem') }, /^TEMPORAL_TLS_CA=.*missing\.pem: cannot read the file \(ENOENT/],
      [{ TEMPORAL_TLS_CA: dir }, /^TEMPORAL_TLS_CA=.*: cannot read the file \(not a regular file\)/],
      [{ TEMPORAL_TLS_CA: files['client-key.pem'] }, /^TEMPORAL_TLS_CA=.*client-key\.pem: no PEM certificate/],
      [{ TEMPORAL_TLS_CERT: files['client.pem'] }, /^TEMPORAL_TLS_CERT is set but TEMPORAL_TLS_KEY is not/],
      [{ TEMPORAL_TLS_KEY: files['client-key.pem'] }, /^TEMPORAL_TLS_KEY is set but TEMPORAL_TLS_CERT is not/],
      [{ TEMPORAL_TLS_CERT: files['client.pem'], TEMPORAL_TLS_KEY: files['rogue-key.pem'] }, /^TEMPORAL_TLS_KEY=.*rogue-key\.pem is not the private key of TEMPORAL_TLS_CERT=.*client\.pem \(CN=nfv-worker\)$/],
      [{ TEMPORAL_TLS_CERT: files['client.pem'], TEMPORAL_TLS_KEY: files['client.pem'] }, /^TEMPORAL_TLS_KEY=.*client\.pem: not a PEM private key/],
      [{ TEMPORAL_TLS_CERT: files['client-key.pem'], TEMPORAL_TLS_KEY: files['client-key.pem'] }, /^TEMPORAL_TLS_CERT=.*: no PEM certificate/],
      [{ TEMPORAL_TLS_SERVER_NAME: 'bad name' }, /^TEMPORAL_TLS_SERVER_NAME must be a host name/],
    ];
    for (const [env, msg] of cases) {
      expect(t(env)).toThrow(TemporalTlsConfigError);
      expect(t(env)).toThrow(msg);
    }
    const encrypted = write('encrypted-key.pem', '-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n');
    expect(t({ TEMPORAL_TLS_CERT: files['client.pem'], TEMPORAL_TLS_KEY: encrypted })).toThrow(/the key is encrypted/);
    // TLS towards the local dev server that npm start runs (no TEMPORAL_ADDRESS) cannot work: said at once.
    expect(() => temporalConnectionSettings({ temporalAddress: '127.0.0.1:7233', externalTemporal: false }, good()))
      .toThrow(/TEMPORAL_TLS settings need TEMPORAL_ADDRESS/);
  });

  test('the worker process stops at start on a bad setting, saying which', async () => {
    const c = startComponent('worker', {
      PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: path.join(dir, 'bad-worker-data'), TEMPORAL_ADDRESS: proxy.address,
      TEMPORAL_TLS_CA: files['ca.pem'], TEMPORAL_TLS_CERT: files['client.pem'],
    }, fs.openSync(path.join(dir, 'bad-worker.log'), 'a'));
    expect(await c.exited).toBe(1);
    const out = fs.readFileSync(path.join(dir, 'bad-worker.log'), 'utf8');
    expect(out).toMatch(/TemporalTlsConfigError: TEMPORAL_TLS_CERT is set but TEMPORAL_TLS_KEY is not/);
    expect(fs.existsSync(path.join(dir, 'bad-worker-data'))).toBe(false); // nothing done before the check
  });
});
