/**
 * The Kubernetes client's HTTPS layer against a real TLS server on loopback
 * that asks for the client certificate and drops a kept-alive connection when
 * the next request arrives on it: a request that met a dropped socket is sent
 * again on a new connection (with the same client certificate), never on
 * another pooled socket that may be dropped as well.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { KubeHttp } from '../../infra/kubernetes/http';
import { createTestCa } from '../support/tls';

let server: https.Server;
let kube: KubeHttp;
const seen: Array<{ served: number; clientCn: string }> = [];

beforeAll(async () => {
  const ca = createTestCa('kube test CA');
  const tls = ca.issueServer();
  const client = ca.issueClient('system:admin');
  server = https.createServer({ cert: tls.cert, key: tls.key, ca: ca.cert, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const socket = req.socket as TLSSocket & { served?: number };
    socket.served = (socket.served ?? 0) + 1;
    seen.push({ served: socket.served, clientCn: String(socket.getPeerCertificate().subject?.CN) });
    if (socket.served === 2) { socket.destroy(); return; }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ kind: 'Status', n: socket.served }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  kube = new KubeHttp({
    server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caPem: ca.cert,
    credentials: { clientCertPem: client.cert, clientKeyPem: client.key },
  });
});
afterAll(async () => {
  kube.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

test('with several pooled sockets all dropped, the request goes again on a new connection with the client certificate', async () => {
  expect((await Promise.all(['a', 'b', 'c'].map((p) => kube.request('GET', `/api/${p}`)))).map((r) => r.status)).toEqual([200, 200, 200]);
  const again = await kube.request('GET', '/api/d'); // a pooled socket, dropped; a retry on another pooled one would be dropped too
  expect(again.status).toBe(200);
  expect(again.body).toEqual({ kind: 'Status', n: 1 });
  expect(seen.map((s) => s.served)).toEqual([1, 1, 1, 2, 1]);
  expect(new Set(seen.map((s) => s.clientCn))).toEqual(new Set(['system:admin']));
});
