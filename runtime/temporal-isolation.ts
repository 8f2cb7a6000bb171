/**
 * `npm start`'s Temporal dev server, open to the product's own processes and
 * the operator only (the CLI's dev server has no TLS or authentication of its
 * own). It runs in a network namespace of its own (runtime/temporal-ns-bridge.ts):
 * nothing on this host reaches its gRPC, HTTP API, metrics or UI ports. This
 * process relays
 * - 127.0.0.1:<port>: TLS with a client certificate of DATA_DIR/temporal/tls's
 *   CA required (the product's processes get nfv.crt through TEMPORAL_TLS_*),
 *   to the gRPC frontend;
 * - 127.0.0.1:<uiPort>: the Web UI behind HTTP basic authentication, user
 *   `operator`, the password in DATA_DIR/temporal/ui-password (0600).
 * The CA and certificates are made at the first start (openssl, 10 years).
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { generatePki } from '../em/certs';
import { devServerArgs, stopChild, type DevServer, type DevServerOptions } from './dev-server';
import { findTemporalCli, INSTALL_HINT } from './temporal-cli';

export const UI_USER = 'operator';

export interface IsolatedDevServer extends DevServer {
  /** TEMPORAL_TLS_* for the product's processes. */
  clientEnv: Record<string, string>;
  uiPasswordFile: string;
}

/** The CA, the relay's server certificate and the product's client certificate, made once. */
function pkiOf(dir: string) {
  if (!fs.existsSync(path.join(dir, 'nfv.key'))) {
    generatePki(dir, { clients: ['nfv'], caName: 'nfv-orchestrator Temporal CA', days: 3650 });
    fs.rmSync(path.join(dir, 'ca.key'), { force: true }); // nothing more is signed: no CA key is kept
  }
  for (const f of fs.readdirSync(dir)) fs.chmodSync(path.join(dir, f), 0o600);
  const file = (n: string) => path.join(dir, n);
  return { ca: file('ca.crt'), cert: file('server.crt'), key: file('server.key'), clientCert: file('nfv.crt'), clientKey: file('nfv.key') };
}

function uiPassword(file: string): string {
  if (!fs.existsSync(file)) fs.writeFileSync(file, `${crypto.randomBytes(18).toString('base64url')}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return fs.readFileSync(file, 'utf8').trim();
}

const listen = (server: net.Server, port: number) => new Promise<void>((resolve, reject) => {
  server.once('error', reject);
  server.listen(port, '127.0.0.1', () => resolve());
});

async function untilConnects(socketPath: string, exited: Promise<void>, timeoutMs: number): Promise<void> {
  let dead = false;
  void exited.then(() => { dead = true; });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (dead) throw new Error('the Temporal dev server exited early (see its output above)');
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(socketPath);
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`the Temporal dev server did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function startIsolatedDevServer(o: DevServerOptions): Promise<IsolatedDevServer> {
  const log = o.log ?? (() => undefined);
  const cli = findTemporalCli({ log });
  if (!cli) throw new Error(INSTALL_HINT);
  fs.mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
  const tlsDir = path.join(o.dataDir, 'tls');
  fs.mkdirSync(tlsDir, { recursive: true, mode: 0o700 });
  const pki = pkiOf(tlsDir);
  const uiPasswordFile = path.join(o.dataDir, 'ui-password');
  const password = uiPassword(uiPasswordFile);
  const grpcSock = path.join(o.dataDir, 'grpc.sock');
  const uiSock = path.join(o.dataDir, 'ui.sock');
  for (const f of [grpcSock, uiSock]) fs.rmSync(f, { force: true });

  const ext = path.extname(__filename);
  const bridge = [process.execPath, ...(ext === '.ts' ? ['--require', require.resolve('tsx/cjs')] : []), path.join(__dirname, `temporal-ns-bridge${ext}`)];
  const spec = { cmd: cli, args: devServerArgs(o), sockets: [{ path: grpcSock, port: o.port }, ...(o.headless ? [] : [{ path: uiSock, port: o.uiPort }])] };
  // root: a network namespace; anyone else: inside a user namespace of their own
  const unshare = process.getuid?.() === 0 ? ['--net'] : ['--user', '--map-root-user', '--net'];
  log(`starting Temporal dev server in a network namespace of its own: ${cli} ${spec.args.join(' ')}`);
  const out = o.stdio ?? 'inherit';
  const child = spawn('unshare', [...unshare, '--', ...bridge, JSON.stringify(spec)], { stdio: ['ignore', out, out] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const grpc = tls.createServer({
    cert: fs.readFileSync(pki.cert), key: fs.readFileSync(pki.key), ca: fs.readFileSync(pki.ca),
    requestCert: true, rejectUnauthorized: true, ALPNProtocols: ['h2'],
  }, (client) => {
    const inner = net.connect(grpcSock);
    client.pipe(inner).pipe(client);
    client.on('error', () => inner.destroy());
    inner.on('error', () => client.destroy());
  });
  grpc.on('tlsClientError', () => undefined); // a client without our certificate: refused in the handshake
  const expected = `Basic ${Buffer.from(`${UI_USER}:${password}`).toString('base64')}`;
  const ui = http.createServer((req, res) => {
    const given = Buffer.from(req.headers.authorization ?? '');
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, Buffer.from(expected))) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="Temporal Web UI (nfv-orchestrator)"', 'Content-Type': 'text/plain' });
      return void res.end(`user ${UI_USER}, the password in ${uiPasswordFile}\n`);
    }
    const { authorization: _drop, ...headers } = req.headers;
    const up = http.request({ socketPath: uiSock, method: req.method, path: req.url, headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => { if (!res.headersSent) res.writeHead(502); res.end(); });
    req.pipe(up);
  });
  const close = () => { grpc.close(); ui.close(); };
  try {
    await untilConnects(grpcSock, exited, 60_000);
    await listen(grpc, o.port);
    if (!o.headless) await listen(ui, o.uiPort);
  } catch (e) {
    close();
    await stopChild(child, exited);
    throw e;
  }
  return {
    address: `127.0.0.1:${o.port}`,
    clientEnv: { TEMPORAL_TLS_CA: pki.ca, TEMPORAL_TLS_CERT: pki.clientCert, TEMPORAL_TLS_KEY: pki.clientKey, TEMPORAL_TLS_SERVER_NAME: 'localhost' },
    uiPasswordFile,
    async stop() {
      close();
      await stopChild(child, exited);
    },
  };
}
