/**
 * The metrics plumbing on real HTTP servers on loopback: route templates as
 * labels (never ids), unknown methods folded, /metrics only to the allowed
 * addresses, the worker's scrape with the SDK exporter's text appended, and
 * every purpose the outbound clients name mapped to a target. The whole
 * product's metrics after real operations are in test/e2e/metrics.test.ts.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { httpMetrics, metricsAllowList, metricsRoute } from '../../api/metrics';
import { openStore, type Store } from '../../store';
import { metricsRegistry, outboundTarget } from '../../common/metrics';
import { workerMetrics } from '../../worker/metrics';

const servers: http.Server[] = [];
let dir: string;
let store: Store;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'metrics-'));
  store = await openStore({ dataDir: dir });
});
afterAll(async () => {
  for (const s of servers) { s.closeAllConnections(); await new Promise((r) => s.close(r)); }
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function listen(app: http.RequestListener): Promise<string> {
  const s = http.createServer(app);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `127.0.0.1:${(s.address() as AddressInfo).port}`;
}

/** One request, optionally from another loopback source address. */
function get(address: string, p: string, o: { method?: string; from?: string } = {}): Promise<{ status: number; text: string }> {
  const [host, port] = address.split(':');
  return new Promise((resolve, reject) => {
    const req = http.request({ host, port: Number(port), path: p, method: o.method ?? 'GET', localAddress: o.from, agent: false }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

function apiLike(allow = metricsAllowList()): express.Express {
  const app = express();
  app.use(httpMetrics());
  app.get('/metrics', metricsRoute(store, allow));
  const lcm = express.Router();
  lcm.get('/vnf_instances/:vnfInstanceId', (req, res) => { res.status(req.params.vnfInstanceId.startsWith('0') ? 404 : 200).json({}); });
  app.use('/vnflcm/v1', lcm);
  app.use((_req, res) => { res.status(404).json({}); });
  return app;
}

test('requests are labelled by method, route template and status class: a hundred ids make no new series', async () => {
  const api = await listen(apiLike());
  for (let i = 0; i < 100; i++) await get(api, `/vnflcm/v1/vnf_instances/${i % 10 ? `a${crypto.randomUUID()}` : `0-${i}`}`);
  await get(api, `/no/such/${crypto.randomUUID()}`);
  await get(api, '/vnflcm/v1/vnf_instances/x', { method: 'PURGE' });
  const metric = await metricsRegistry.getSingleMetric('nfv_http_requests_total')!.get();
  const series = metric.values.map((v) => ({ ...v.labels, value: v.value }));
  expect(series).toEqual(expect.arrayContaining([
    { method: 'GET', route: '/vnflcm/v1/vnf_instances/:vnfInstanceId', status_class: '2xx', value: 90 },
    { method: 'GET', route: '/vnflcm/v1/vnf_instances/:vnfInstanceId', status_class: '4xx', value: 10 },
    { method: 'GET', route: 'unmatched', status_class: '4xx', value: 1 },
    { method: 'OTHER', route: 'unmatched', status_class: '4xx', value: 1 },
  ]));
  expect(series).toHaveLength(4);
  const text = (await get(api, '/metrics')).text;
  expect(text).toMatch(/^nfv_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/vnflcm\/v1\/vnf_instances\/:vnfInstanceId",status_class="2xx"\} \d+$/m);
  // the store's gauges, read at scrape time
  expect(text).toMatch(/^nfv_lcm_operations_in_state\{api="etsi",state="FAILED_TEMP"\} 0$/m);
  expect(text).toMatch(/^nfv_clusters_by_health\{health_status="UNHEALTHY"\} 0$/m);
  expect(text).toMatch(/^nfv_notification_outbox_backlog 0$/m);
});

test('/metrics answers only the allowed addresses; from others it is an unknown path', async () => {
  const api = await listen(apiLike(metricsAllowList('127.0.0.1/32')));
  expect((await get(api, '/metrics', { from: '127.0.0.1' })).status).toBe(200);
  const refused = await get(api, '/metrics', { from: '127.0.0.2' });
  expect(refused.status).toBe(404);
  expect(refused.text).not.toContain('nfv_');
  const wide = await listen(apiLike(metricsAllowList('127.0.0.0/8, ::1')));
  expect((await get(wide, '/metrics', { from: '127.0.0.2' })).status).toBe(200);
  expect(() => metricsAllowList('127.0.0.1/x')).toThrow(/METRICS_ALLOWED_CIDRS: "127.0.0.1\/x"/);
});

test('the worker scrape is the product\'s families and then the SDK exporter\'s', async () => {
  const sdk = await listen((_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }).end('# TYPE temporal_sticky_cache_size gauge\ntemporal_sticky_cache_size 3\n'); });
  const m = await workerMetrics(sdk);
  expect(m.contentType).toMatch(/^text\/plain/);
  expect(m.body).toMatch(/^# HELP nfv_lcm_operations_total /m);
  expect(m.body).toMatch(/\ntemporal_sticky_cache_size 3\n$/);
  // an exporter that does not answer leaves the product's metrics served
  const closed = await listen((req) => req.socket.destroy());
  expect((await workerMetrics(closed)).body).toMatch(/^# HELP nfv_lcm_operations_total /m);
});

test('every purpose the outbound clients name has its target', () => {
  const purposes: Record<string, string> = {
    'orchestration endpoint': 'heat', 'compute endpoint': 'nova', 'network endpoint': 'neutron', 'identity endpoint': 'keystone',
    'VIM auth_url': 'keystone', Keystone: 'keystone', 'Kubernetes API endpoint': 'kubernetes', 'coordination endpoint': 'coordination',
    'OAuth 2.0 token endpoint': 'coordination', callbackUri: 'notification', 'CADF webhook': 'notification', 'OpenStack endpoint': 'other',
  };
  expect(Object.fromEntries(Object.keys(purposes).map((p) => [p, outboundTarget(p)]))).toEqual(purposes);
});

test('METRICS=off: nothing is measured, and no process metrics either', async () => {
  process.env.METRICS = 'off';
  try {
    await jest.isolateModulesAsync(async () => {
      const m = await import('../../common/metrics');
      expect(m.metricsOn).toBe(false);
      expect(await m.timedCall('heat', async () => 'answer')).toBe('answer');
      m.countOperationEnd({ api: 'etsi', operation: 'INSTANTIATE', state: 'COMPLETED', final: true, startedAt: new Date().toISOString() });
      const values = (await m.metricsRegistry.getMetricsAsJSON()).flatMap((x) => x.values);
      expect(values).toEqual([]);
    });
  } finally {
    delete process.env.METRICS;
  }
  // and on (the default) the same calls are measured
  await outboundTimedForComparison();
});

async function outboundTimedForComparison(): Promise<void> {
  const { timedCall, outboundDuration } = await import('../../common/metrics');
  const before = (await outboundDuration.get()).values.find((v) => v.metricName === 'nfv_outbound_request_duration_seconds_count' && v.labels.target === 'heat')?.value ?? 0;
  await timedCall('heat', async () => 'answer');
  const after = (await outboundDuration.get()).values.find((v) => v.metricName === 'nfv_outbound_request_duration_seconds_count' && v.labels.target === 'heat')?.value ?? 0;
  expect(after - before).toBe(1);
}
