/**
 * The worker's probe port, for Kubernetes' liveness and readiness probes
 * (WORKER_PROBE_PORT): /healthz answers 200 while the worker runs (its
 * pollers have not failed or stopped), /readyz 200 when the store,
 * Temporal and Keystone answer, else 503 naming the dependency (its reason
 * goes to the log). Nothing else is served.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { sharedProbe, type ReadinessCheck } from '../infra/readiness';

export interface ProbeServer { port: number; close(): Promise<void> }

export async function startProbeServer(o: { host: string; port: number; alive: () => boolean; checks: ReadinessCheck[]; log: Logger }): Promise<ProbeServer> {
  const probe = sharedProbe(o.checks, o.log);
  const send = (res: http.ServerResponse, status: number, body: object) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET') return send(res, 405, { status: 'method not allowed' });
    if (req.url === '/healthz') return o.alive() ? send(res, 200, { status: 'ok' }) : send(res, 503, { status: 'stopped' });
    if (req.url !== '/readyz') return send(res, 404, { status: 'not found' });
    probe().then((a) => send(res, a.status, a.body), (e: Error) => send(res, 500, { status: e.message }));
  });
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(o.port, o.host, resolve); });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
