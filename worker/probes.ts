/**
 * The worker's probe and metrics port (WORKER_METRICS_PORT), for
 * Kubernetes' liveness and readiness probes and Prometheus: /healthz
 * answers 200 while the worker runs (its pollers have not failed or
 * stopped), /readyz 200 when the store, Temporal and Keystone answer, else
 * 503 naming the dependency (its reason goes to the log), /metrics the
 * Prometheus text format (worker/metrics.ts). Nothing else is served.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { sharedProbe, type ReadinessCheck } from '../infra/readiness';

export interface ProbeServer { port: number; close(): Promise<void> }

export interface ProbeServerOptions {
  host: string;
  port: number;
  alive: () => boolean;
  checks: ReadinessCheck[];
  log: Logger;
  metrics?: () => Promise<{ contentType: string; body: string }>;
}

export async function startProbeServer(o: ProbeServerOptions): Promise<ProbeServer> {
  const probe = sharedProbe(o.checks, o.log);
  const send = (res: http.ServerResponse, status: number, body: object) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET') return send(res, 405, { status: 'method not allowed' });
    if (req.url === '/healthz') return o.alive() ? send(res, 200, { status: 'ok' }) : send(res, 503, { status: 'stopped' });
    if (req.url === '/metrics' && o.metrics) {
      o.metrics().then((m) => res.writeHead(200, { 'content-type': m.contentType }).end(m.body), (e: Error) => send(res, 500, { status: e.message }));
      return;
    }
    if (req.url !== '/readyz') return send(res, 404, { status: 'not found' });
    probe().then((a) => send(res, a.status, a.body), (e: Error) => send(res, 500, { status: e.message }));
  });
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(o.port, o.host, resolve); });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
