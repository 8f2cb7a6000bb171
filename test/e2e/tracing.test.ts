/**
 * OpenTelemetry traces (issue 27 item 2): an API and a worker of this test's
 * own (their own task queue, beside the harness's) export OTLP to a test
 * collector on loopback. One instantiate gives one trace: the API's request
 * span, the workflow's spans, its activities' and their calls to Heat, all
 * under the trace id the API's answer names in `traceresponse`, which the
 * op occ's workflow carries as its TraceId search attribute and the op occ
 * shows (traceId); a Magnum cluster shows its operation's (trace_id).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { zipFiles } from '../../samples/build';
import { sampleVariant } from '../../samples/variant';
import { startComponent, stopComponent, waitForHttp, type Child } from '../../runtime/processes';
import { readState } from '../harness/state';
import { freePort } from '../harness/ports';
import { call, eventually, onboard, opIdFrom, temporalClient, waitOpState } from '../support/api';
import { SA_TRACE_ID } from '../../common/search-attributes';
import { LATEST, templateBody } from '../support/magnum';

const SAMPLE = path.resolve(__dirname, '../../samples/two_vdu_vnf');

interface ReceivedSpan { service: string; traceId: string; spanId: string; parentSpanId?: string; name: string }

const spans: ReceivedSpan[] = [];
let collector: http.Server;
let api: Child | undefined;
let worker: Child | undefined;
let base: string;

/** An OTLP/HTTP trace receiver (JSON encoding, the exporter's default): POST /v1/traces. */
function startCollector(): Promise<string> {
  collector = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).includes('json')) {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? []) {
        const service = rs.resource?.attributes?.find((a: { key: string }) => a.key === 'service.name')?.value?.stringValue;
        for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) spans.push({ service, traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, name: s.name });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => collector.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(collector.address() as AddressInfo).port}`)));
}

beforeAll(async () => {
  const s = readState();
  const endpoint = await startCollector();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '200', TASK_QUEUE: `nfv-tracing-${port}` };
  worker = startComponent('worker', { ...s.env, ...traced }, fs.openSync(path.join(s.logDir, 'tracing-worker.log'), 'a'));
  api = startComponent('api', { ...s.env, ...s.apiEnv, ...traced, API_PORT: String(port), API_BASE_URL: base }, fs.openSync(path.join(s.logDir, 'tracing-api.log'), 'a'));
  await waitForHttp(`${base}/healthz`, 120_000, api);
}, 180_000);

afterAll(async () => {
  for (const c of [api, worker]) if (c) await stopComponent(c, 10_000);
  await new Promise((r) => collector?.close(r));
});

test('one instantiate is one trace: the API request, the workflow, its activities and their Heat calls', async () => {
  const { files, vnfdId } = sampleVariant(SAMPLE);
  expect((await onboard(zipFiles(files), {}, base)).onboardingState).toBe('ONBOARDED');
  const created = await call('POST', '/vnflcm/v2/vnf_instances', { vnfdId }, { Version: '2.0.0' }, base);
  expect(created.status).toBe(201);
  const r = await call('POST', `/vnflcm/v2/vnf_instances/${created.body.id}/instantiate`, {
    flavourId: 'simple', instantiationLevelId: 'instantiation_level_1',
    extVirtualLinks: [{ id: 'net0', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
  }, { Version: '2.0.0' }, base);
  expect(r.status).toBe(202);
  const traceId = /^00-([0-9a-f]{32})-[0-9a-f]{16}-01$/.exec(String(r.headers.get('traceresponse')))?.[1];
  expect(traceId).toBeDefined();
  expect((await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP'], 90_000, 'v2', base)).operationState).toBe('COMPLETED');
  // the op occ's workflow carries the trace id: an operator finds the trace from the op in the Web UI (TraceId="...")
  const temporal = await temporalClient();
  try {
    const described = await temporal.workflow.getHandle(opIdFrom(r)).describe();
    expect(described.typedSearchAttributes.get(SA_TRACE_ID)).toBe(traceId);
  } finally {
    await temporal.connection.close();
  }
  // and the op occ itself names it, and a list filter finds the op by it (in SQL, as every SOL013 filter)
  expect((await call('GET', `/vnflcm/v2/vnf_lcm_op_occs/${opIdFrom(r)}`, undefined, { Version: '2.0.0' }, base)).body.traceId).toBe(traceId);
  const found = await call('GET', `/vnflcm/v2/vnf_lcm_op_occs?filter=(eq,traceId,${traceId})`, undefined, { Version: '2.0.0' }, base);
  expect([found.status, found.body.map((o: { id: string }) => o.id)]).toEqual([200, [opIdFrom(r)]]);

  const trace = await eventually('the worker\'s spans of the trace', async () => {
    const mine = spans.filter((s) => s.traceId === traceId);
    return mine.some((s) => s.service === 'nfv-worker' && s.name === 'heat POST') && mine.some((s) => /RunActivity:recordVnfInfo/.test(s.name)) ? mine : undefined;
  }, 30_000);
  const names = (service: string) => trace.filter((s) => s.service === service).map((s) => s.name);
  expect(names('nfv-api')).toContain('POST /vnflcm/v2/vnf_instances/:id/instantiate');
  expect(names('nfv-worker')).toEqual(expect.arrayContaining([expect.stringMatching(/^RunWorkflow:instantiate$/), expect.stringMatching(/^RunActivity:createStack$/), 'heat GET']));
  // one tree: every span but the request's has its parent in the trace
  const ids = new Set(trace.map((s) => s.spanId));
  const roots = trace.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId));
  expect(roots.map((s) => `${s.service} ${s.name}`)).toEqual(['nfv-api POST /vnflcm/v2/vnf_instances/:id/instantiate']);
}, 240_000);

const traceOf = (r: { headers: Headers }) => /^00-([0-9a-f]{32})-/.exec(String(r.headers.get('traceresponse')))?.[1];

test('a Magnum cluster names the trace of the request that started its operation (trace_id)', async () => {
  const template = await call('POST', '/v1/clustertemplates', templateBody(`traced-${Date.now().toString(36)}`), LATEST, base);
  expect(template.status).toBe(201);
  try {
    const created = await call('POST', '/v1/clusters', { cluster_template_id: template.body.uuid, name: 'traced', node_count: 0, master_count: 1 }, LATEST, base);
    expect(created.status).toBe(202);
    const shown = await call('GET', `/v1/clusters/${created.body.uuid}`, undefined, LATEST, base);
    expect(shown.body.trace_id).toBe(traceOf(created));
    // the operation that followed has its own request and trace
    const deleted = await call('DELETE', `/v1/clusters/${created.body.uuid}`, undefined, LATEST, base);
    expect(deleted.status).toBe(204);
    expect(traceOf(deleted)).not.toBe(traceOf(created));
    await eventually('the traced cluster deleted', async () => {
      const r = await call('GET', `/v1/clusters/${created.body.uuid}`, undefined, LATEST, base);
      if (r.status === 404) return true;
      expect(r.body.trace_id).toBe(traceOf(deleted));
      return undefined;
    }, 180_000, 1000);
  } finally {
    await call('DELETE', `/v1/clustertemplates/${template.body.uuid}`, undefined, LATEST, base);
  }
}, 240_000);
