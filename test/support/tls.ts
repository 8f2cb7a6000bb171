/**
 * Test PKI: a CA, server certificates for 127.0.0.1/localhost and client
 * certificates, as PEM. Keys come from node:crypto (fast, native); node-forge
 * builds and signs the X.509 certificates. Plus a small recording HTTP/HTTPS
 * server (optionally asking for client certificates) for client tests.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import forge from 'node-forge';

export interface Issued { cert: string; key: string }
export interface TestCa extends Issued {
  issueServer(opts?: { ips?: string[]; dns?: string[]; cn?: string }): Issued;
  issueClient(cn: string): Issued;
}

function keyPair() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { pem: privateKey, priv: forge.pki.privateKeyFromPem(privateKey), pub: forge.pki.publicKeyFromPem(publicKey) };
}

function baseCert(pub: forge.pki.PublicKey, cn: string): forge.pki.Certificate {
  const c = forge.pki.createCertificate();
  c.publicKey = pub;
  c.serialNumber = `01${randomBytes(8).toString('hex')}`; // positive
  c.validity.notBefore = new Date(Date.now() - 60_000);
  c.validity.notAfter = new Date(Date.now() + 24 * 3600_000);
  c.setSubject([{ name: 'commonName', value: cn }]);
  return c;
}

/** A self-signed CA that can issue server and client certificates. */
export function createTestCa(cn = 'coord test CA'): TestCa {
  const k = keyPair();
  const caCert = baseCert(k.pub, cn);
  caCert.setIssuer(caCert.subject.attributes);
  caCert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  caCert.sign(k.priv, forge.md.sha256.create());

  const issue = (subjectCn: string, exts: any[]): Issued => {
    const lk = keyPair();
    const c = baseCert(lk.pub, subjectCn);
    c.setIssuer(caCert.subject.attributes);
    c.setExtensions([
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
      ...exts,
    ]);
    c.sign(k.priv, forge.md.sha256.create());
    return { cert: forge.pki.certificateToPem(c), key: lk.pem };
  };

  return {
    cert: forge.pki.certificateToPem(caCert),
    key: k.pem,
    issueServer: (o = {}) => issue(o.cn ?? '127.0.0.1', [
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...(o.ips ?? ['127.0.0.1']).map((ip) => ({ type: 7, ip })),
          ...(o.dns ?? ['localhost']).map((value) => ({ type: 2, value })),
        ],
      },
    ]),
    issueClient: (clientCn) => issue(clientCn, [{ name: 'extKeyUsage', clientAuth: true }]),
  };
}

// ---- small recording HTTP/HTTPS servers for client tests ------------------


export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** https only: whether the client presented a certificate the server's CA verified, and its CN. */
  clientAuthorized?: boolean;
  clientCn?: string;
}
export interface Reply { status: number; headers?: Record<string, string>; body?: unknown }
export type Handler = (r: Seen) => Reply | Promise<Reply> | 'hang';

export interface TestServer {
  url: string;
  port: number;
  /** Requests received, in order. */
  seen: Seen[];
  /** TCP connections accepted (a refused-before-connecting call leaves it at 0). */
  connections: number;
  handler: Handler;
  close(): Promise<void>;
}

/**
 * A server on 127.0.0.1 that records every request and answers with
 * `handler` (replaceable per test). With tls, it is https with that
 * certificate; with tls.clientCa, it asks for a client certificate and
 * records whether it verifies (requireClientCert: refuse the handshake without one).
 */
export async function startTestServer(o: { tls?: Issued & { clientCa?: string; requireClientCert?: boolean } } = {}): Promise<TestServer> {
  const state: TestServer = {
    url: '', port: 0, seen: [], connections: 0, handler: () => ({ status: 500, body: { status: 500, detail: 'no handler' } }),
    close: async () => undefined,
  };
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const sock = req.socket as TLSSocket;
      const seen: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      if (o.tls) {
        seen.clientAuthorized = sock.authorized;
        const peer = sock.getPeerCertificate();
        if (peer && peer.subject) seen.clientCn = String(peer.subject.CN);
      }
      state.seen.push(seen);
      try {
        const reply = await state.handler(seen);
        if (reply === 'hang') return;
        const body = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
        res.writeHead(reply.status, { ...(body && typeof reply.body !== 'string' ? { 'content-type': 'application/json' } : {}), ...reply.headers });
        res.end(body);
      } catch (e) {
        res.writeHead(500).end(String(e));
      }
    });
  };
  const server = o.tls
    ? https.createServer({
        cert: o.tls.cert, key: o.tls.key,
        ...(o.tls.clientCa ? { ca: o.tls.clientCa, requestCert: true, rejectUnauthorized: !!o.tls.requireClientCert } : {}),
      }, onRequest)
    : http.createServer(onRequest);
  server.on('connection', () => { state.connections++; });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  state.port = port;
  state.url = `${o.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  state.close = () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return state;
}
