/**
 * A TLS-terminating proxy in front of a plaintext gRPC server, for testing
 * TLS/mTLS to Temporal: the Temporal CLI's dev server has no TLS settings
 * (`temporal server start-dev` builds its server config in code, with an
 * empty `global.tls`). node:tls accepts TLS with ALPN `h2` (what gRPC
 * clients require), optionally demanding a client certificate from `clientCa`,
 * and pipes the decrypted bytes to the dev server's plaintext port, which
 * speaks HTTP/2 with prior knowledge (h2c): HTTP/2 frames are the same over
 * TLS and cleartext, so the proxy needs no HTTP/2 parsing of its own.
 */
import net from 'node:net';
import tls from 'node:tls';

export interface TlsHandshake {
  ok: boolean;
  /** Negotiated ALPN protocol (`h2`) on success. */
  alpn?: string | false;
  /** SNI the client sent. */
  servername?: string | false;
  /** Subject CN of the verified client certificate (mTLS). */
  clientCn?: string;
  /** Why the handshake failed (Node's error code and message). */
  error?: string;
}

export interface TlsProxy {
  address: string;
  port: number;
  handshakes: TlsHandshake[];
  close(): Promise<void>;
}

export async function startTlsProxy(o: {
  target: { host: string; port: number };
  cert: string;
  key: string;
  /** PEM of the CA client certificates must chain to; with it, a client certificate is required. */
  clientCa?: string;
}): Promise<TlsProxy> {
  const handshakes: TlsHandshake[] = [];
  const sockets = new Set<net.Socket>();
  const server = tls.createServer({
    cert: o.cert,
    key: o.key,
    ALPNProtocols: ['h2'],
    minVersion: 'TLSv1.2',
    ...(o.clientCa ? { ca: o.clientCa, requestCert: true, rejectUnauthorized: true } : {}),
  }, (client) => {
    const peer = client.getPeerCertificate();
    handshakes.push({
      ok: true, alpn: client.alpnProtocol ?? undefined, servername: (client as tls.TLSSocket & { servername?: string | false }).servername,
      ...(peer?.subject ? { clientCn: String(peer.subject.CN) } : {}),
    });
    const upstream = net.connect(o.target);
    sockets.add(client).add(upstream);
    const done = () => { client.destroy(); upstream.destroy(); sockets.delete(client); sockets.delete(upstream); };
    client.on('error', done).on('close', done);
    upstream.on('error', done).on('close', done);
    client.pipe(upstream).pipe(client);
  });
  server.on('tlsClientError', (e: NodeJS.ErrnoException) => {
    handshakes.push({ ok: false, error: `${e.code ?? ''} ${e.message}`.trim() });
  });
  server.on('connection', (s: net.Socket) => { sockets.add(s); s.once('close', () => sockets.delete(s)); });
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(0, '127.0.0.1', () => resolve()); });
  const port = (server.address() as net.AddressInfo).port;
  return {
    address: `127.0.0.1:${port}`, port, handshakes,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
