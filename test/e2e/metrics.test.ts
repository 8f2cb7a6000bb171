/**
 * Prometheus metrics of the API and the worker (issue 27): after an
 * instantiate that completes and one that fails, the counters and
 * histograms moved by exactly those operations; the worker's scrape holds
 * the Temporal SDK's own metrics; a hundred operations over many
 * instances add no series (no label carries an id). The allow list of
 * /metrics and the route labels are in test/component/metrics.test.ts.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { zipFiles } from '../../samples/build';
import { sampleVariant } from '../../samples/variant';
import { readState } from '../harness/state';
import { apiUrl, call, onboard, opIdFrom, waitOpState } from '../support/api';
import { kitMetricNames } from '../support/monitoring-kit';

const SAMPLE = path.resolve(__dirname, '../../samples/two_vdu_vnf');

/** One sample: `name{labels} value` per line, comments dropped. */
interface Sample { name: string; labels: Record<string, string>; value: number }

function parse(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

const value = (s: Sample[], name: string, labels: Record<string, string> = {}) =>
  s.filter((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v)).reduce((a, x) => a + x.value, 0);

async function scrape(url: string): Promise<{ text: string; samples: Sample[] }> {
  const r = await fetch(url);
  expect([url, r.status, r.headers.get('content-type')]).toEqual([url, 200, expect.stringContaining('text/plain')]);
  const text = await r.text();
  return { text, samples: parse(text) };
}

/** The worker's metrics port, from its last start line (the harness gives it port 0: any free one). */
function workerMetricsUrl(): string {
  const log = fs.readFileSync(path.join(readState().logDir, 'worker.log'), 'utf8');
  const starts = [...log.matchAll(/^\{.*"msg":"worker started".*$/gm)].map((m) => JSON.parse(m[0]));
  const port = starts.at(-1)?.probePort;
  if (!port) throw new Error('the worker logged no probe port');
  return `http://127.0.0.1:${port}/metrics`;
}

const instantiateBody = (vimConnectionInfo?: unknown) => ({
  flavourId: 'simple', instantiationLevelId: 'instantiation_level_1',
  extVirtualLinks: [{ id: 'net0', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
  ...(vimConnectionInfo ? { vimConnectionInfo } : {}),
});

let vnfdId: string;
beforeAll(async () => {
  const { files, vnfdId: id } = sampleVariant(SAMPLE);
  expect((await onboard(zipFiles(files))).onboardingState).toBe('ONBOARDED');
  vnfdId = id;
});

async function newInstance(): Promise<string> {
  const r = await call('POST', '/vnflcm/v2/vnf_instances', { vnfdId });
  expect(r.status).toBe(201);
  return r.body.id;
}

test('an instantiate that completes and one that fails move the counters and histograms by exactly those', async () => {
  const api = `${apiUrl()}/metrics`;
  const worker = workerMetricsUrl();
  const before = { api: (await scrape(api)).samples, worker: (await scrape(worker)).samples };

  const ok = await newInstance();
  const done = await call('POST', `/vnflcm/v2/vnf_instances/${ok}/instantiate`, instantiateBody(), { Version: '2.0.0' });
  expect(done.status).toBe(202);
  expect((await waitOpState(opIdFrom(done), ['COMPLETED', 'FAILED_TEMP'], 90_000, 'v2')).operationState).toBe('COMPLETED');
  // a VIM whose password Keystone refuses: the stack step fails, the op parks, the operator fails it
  const bad = await newInstance();
  const wrongVim = { vim1: {
    vimId: crypto.randomUUID(), vimType: 'ETSINFV.OPENSTACK_KEYSTONE.V_3', interfaceInfo: { endpoint: readState().keystoneUrl },
    accessInfo: { username: 'admin', password: 'wrong-password-123', project: 'admin', projectDomain: 'Default', userDomain: 'Default', region: 'RegionOne' },
  } };
  const failing = await call('POST', `/vnflcm/v2/vnf_instances/${bad}/instantiate`, instantiateBody(wrongVim), { Version: '2.0.0' });
  const parked = await waitOpState(opIdFrom(failing), ['COMPLETED', 'FAILED_TEMP'], 90_000, 'v2');
  expect(parked.operationState).toBe('FAILED_TEMP');
  expect((await call('POST', `/vnflcm/v2/vnf_lcm_op_occs/${parked.id}/fail`, undefined, { Version: '2.0.0' })).status).toBe(200);

  const after = { api: (await scrape(api)).samples, worker: (await scrape(worker)).samples };
  const moved = (where: 'api' | 'worker', name: string, labels: Record<string, string> = {}) => value(after[where], name, labels) - value(before[where], name, labels);
  // the worker counts the operations' ends (other files' operations may end meanwhile: at least these)
  const etsi = { api: 'etsi', operation: 'INSTANTIATE' };
  expect(moved('worker', 'nfv_lcm_operations_total', { ...etsi, state: 'COMPLETED' })).toBeGreaterThanOrEqual(1);
  expect(moved('worker', 'nfv_lcm_operations_total', { ...etsi, state: 'FAILED_TEMP' })).toBeGreaterThanOrEqual(1);
  expect(moved('worker', 'nfv_lcm_operations_total', { ...etsi, state: 'FAILED' })).toBeGreaterThanOrEqual(1);
  expect(moved('worker', 'nfv_lcm_operation_duration_seconds_count', etsi)).toBeGreaterThanOrEqual(2);
  expect(moved('worker', 'nfv_lcm_operation_duration_seconds_sum', etsi)).toBeGreaterThan(0);
  // the calls the operations made: Heat for the stack, Keystone for the refused password
  expect(moved('worker', 'nfv_outbound_request_duration_seconds_count', { target: 'heat', outcome: 'ok' })).toBeGreaterThanOrEqual(3);
  expect(moved('worker', 'nfv_outbound_request_duration_seconds_count', { target: 'keystone' })).toBeGreaterThanOrEqual(1);
  // the API counted the instantiate POSTs by their route template, as 2xx
  const posts = { method: 'POST', route: '/vnflcm/v2/vnf_instances/:id/instantiate', status_class: '2xx' };
  expect(moved('api', 'nfv_http_requests_total', posts)).toBeGreaterThanOrEqual(2);
  expect(moved('api', 'nfv_http_request_duration_seconds_count', posts)).toBeGreaterThanOrEqual(2);
  // the SDK's own worker metrics are in the same scrape, under the names the dashboard and the alerts use
  const sdk = new Set(after.worker.filter((s) => s.name.startsWith('temporal_')).map((s) => s.name.replace(/_(bucket|count|sum)$/, '')));
  const kit = kitMetricNames().filter((n) => n.startsWith('temporal_'));
  expect(kit.length).toBeGreaterThanOrEqual(3);
  const missing = kit.filter((n) => !sdk.has(n));
  if (missing.length) throw new Error(`the kit names ${missing.join(', ')}; the worker exports ${[...sdk].join(', ')}`);
  // the store's gauges are on the API
  for (const g of ['nfv_lcm_operations_in_state', 'nfv_notification_outbox_backlog', 'nfv_notification_outbox_oldest_age_seconds', 'nfv_clusters_by_health', 'nfv_lcm_operations_parked_on_coordination']) {
    expect([g, after.api.some((s) => s.name === g)]).toEqual([g, true]);
  }
}, 240_000);

test('a hundred operations over twenty instances add no series: no label holds an id', async () => {
  const api = `${apiUrl()}/metrics`;
  const series = (samples: Sample[]) => new Set(samples.filter((s) => s.name.startsWith('nfv_')).map((s) => `${s.name}${JSON.stringify(s.labels)}`));
  // one round first, so every series these calls make exists before counting
  const warm = await newInstance();
  const warmOp = await call('PATCH', `/vnflcm/v2/vnf_instances/${warm}`, { vnfInstanceName: 'warm' }, { Version: '2.0.0' });
  expect(warmOp.status).toBe(202);
  await waitOpState(opIdFrom(warmOp), ['COMPLETED'], 60_000, 'v2');
  await call('GET', `/vnflcm/v2/vnf_instances/${warm}`);
  await call('GET', `/vnflcm/v2/vnf_instances/${crypto.randomUUID()}`);
  const worker = workerMetricsUrl();
  const before = { api: series((await scrape(api)).samples), worker: series((await scrape(worker)).samples) };

  const ids: string[] = [];
  const ops: string[] = [];
  for (let i = 0; i < 20; i++) {
    const id = await newInstance();
    ids.push(id);
    for (let j = 0; j < 5; j++) {
      const r = await call('PATCH', `/vnflcm/v2/vnf_instances/${id}`, { vnfInstanceName: `name-${i}-${j}`, vnfInstanceDescription: `d${i}${j}` }, { Version: '2.0.0' });
      expect(r.status).toBe(202);
      ops.push(opIdFrom(r));
      await waitOpState(opIdFrom(r), ['COMPLETED'], 60_000, 'v2');
    }
    await call('GET', `/vnflcm/v2/vnf_instances/${id}`);
    await call('GET', `/vnflcm/v2/vnf_instances/${crypto.randomUUID()}`); // a 404 on an id never seen
  }
  const afterText = { api: (await scrape(api)).text, worker: (await scrape(worker)).text };
  const after = { api: series(parse(afterText.api)), worker: series(parse(afterText.worker)) };
  // Other files share this API and worker, and their calls may make series of their own meanwhile
  // (CI #60: a heal's first 2xx): counted are the series this test's own calls could make (its
  // methods on its routes, and the MODIFY_INFO operations), which the warm round made already.
  const OWN_CALLS = ['POST /vnflcm/v2/vnf_instances', 'PATCH /vnflcm/v2/vnf_instances/:id', 'GET /vnflcm/v2/vnf_instances/:id', 'GET /vnflcm/v2/vnf_lcm_op_occs/:id'];
  const ours = (s: string) => s.includes('"operation":"MODIFY_INFO"')
    || OWN_CALLS.some((c) => { const [method, route] = c.split(' '); return s.includes(`"method":"${method}","route":"${route}"`); });
  const added = (w: 'api' | 'worker') => [...after[w]].filter((s) => !before[w].has(s) && ours(s));
  expect(added('api')).toEqual([]);
  expect(added('worker')).toEqual([]);
  // no series of the product's, whoever made it, has an id in a label
  const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
  for (const w of ['api', 'worker'] as const) expect([...after[w]].filter((s) => UUID.test(s))).toEqual([]);
  // and none of the ids or names sent appears anywhere in either scrape
  for (const text of Object.values(afterText)) {
    for (const x of [...ids, ...ops, 'name-19-4']) expect(text.includes(x)).toBe(false);
  }
}, 600_000);
