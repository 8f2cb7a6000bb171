/**
 * Scale-out on one PostgreSQL and one Temporal (README, "Scale-out"): two
 * APIs and two workers, each "host" with its own DATA_DIR, sharing
 * DATABASE_URL, SECRET_KEY and the task queue, and package content through
 * PostgreSQL alone (the database content store: no shared directory). While
 * instantiations run, one API and one worker are killed with SIGKILL: every
 * operation still completes, through the survivors, and every instance has
 * exactly one stack.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startComponent, waitForHttp, type Child } from '../../runtime/processes';
import { sampleVariant } from '../../samples/variant';
import { readState } from '../harness/state';
import { freePort } from '../harness/ports';
import { call, onboard, opIdFrom, stacksNamed, waitOpState } from '../support/api';
import { startPostgres, type TestPostgres } from '../support/postgres';

const SAMPLE = path.resolve(__dirname, '../../samples/two_vdu_vnf');
const OPS = 6;
let pg: TestPostgres;
let dir: string;
const hosts: { api: Child; worker: Child; url: string }[] = [];

beforeAll(async () => {
  const s = readState();
  pg = await startPostgres('nfv_multihost');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nfv-multihost-'));
  const shared = {
    ...s.env, ...s.apiEnv,
    DATABASE_URL: pg.url,
    SECRET_KEY: crypto.randomBytes(32).toString('base64'),
    // its own queue: the harness's worker (SQLite store) must not take these operations
    TASK_QUEUE: `nfv-lcm-multihost-${crypto.randomUUID().slice(0, 8)}`,
  };
  for (const name of ['a', 'b']) {
    const port = await freePort();
    const env = { ...shared, DATA_DIR: path.join(dir, name), API_PORT: String(port), API_BASE_URL: `http://127.0.0.1:${port}` };
    fs.mkdirSync(env.DATA_DIR, { recursive: true, mode: 0o700 });
    const log = (c: string) => fs.openSync(path.join(s.logDir, `multihost-${name}-${c}.log`), 'a');
    const api = startComponent('api', env, log('api'));
    const worker = startComponent('worker', env, log('worker'));
    hosts.push({ api, worker, url: `http://127.0.0.1:${port}` });
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, 120_000, api);
  }
}, 300_000);

afterAll(async () => {
  for (const h of hosts) for (const c of [h.api, h.worker]) { try { c.proc.kill('SIGKILL'); } catch { /* gone */ } }
  await Promise.all(hosts.flatMap((h) => [h.api.exited, h.worker.exited]));
  pg?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('kill -9 of one API and one worker mid-operations: every operation completes, one stack per instance', async () => {
  const [a, b] = hosts;
  const pkg = sampleVariant(SAMPLE);
  const onboarded = await onboard(pkg.zip, {}, a.url);
  expect(onboarded.onboardingState).toBe('ONBOARDED');
  // uploaded through a, onboarded by either worker: b serves the zip and its files from the database
  const content = await call('GET', `/vnfpkgm/v1/vnf_packages/${onboarded.id}/package_content`, undefined, {}, b.url);
  expect([content.status, Number(content.headers.get('content-length'))]).toEqual([200, pkg.zip.length]);
  expect((await call('GET', `/vnfpkgm/v1/vnf_packages/${onboarded.id}/artifacts/TOSCA-Metadata/TOSCA.meta`, undefined, {}, b.url)).text).toContain('Entry-Definitions');
  const started: { instance: string; op: string }[] = [];
  for (let i = 0; i < OPS; i++) {
    const host = i % 2 ? b : a; // requests spread over both APIs
    const instance = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId: pkg.vnfdId, vnfInstanceName: `mh-${i}` }, {}, host.url)).body.id;
    const r = await call('POST', `/vnflcm/v1/vnf_instances/${instance}/instantiate`, {
      flavourId: 'simple', extVirtualLinks: [{ id: 'n', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
    }, {}, host.url);
    expect(r.status).toBe(202);
    started.push({ instance, op: opIdFrom(r) });
  }
  // Both APIs see every operation (one store).
  for (const { op } of started) expect((await call('GET', `/vnflcm/v1/vnf_lcm_op_occs/${op}`, undefined, {}, b.url)).status).toBe(200);
  // Mid-operation: host a's API and worker die without a word.
  await waitOpState(started[0].op, ['PROCESSING', 'COMPLETED'], 60_000, 'v1', b.url);
  a.api.proc.kill('SIGKILL');
  a.worker.proc.kill('SIGKILL');
  for (const { instance, op } of started) {
    const done = await waitOpState(op, ['COMPLETED', 'FAILED_TEMP'], 240_000, 'v1', b.url);
    expect([op, done.error?.detail ?? done.operationState]).toEqual([op, 'COMPLETED']);
    const live = (await stacksNamed(`vnf-${instance}`)).filter((x) => x.status !== 'DELETE_COMPLETE');
    expect([instance, live.length]).toEqual([instance, 1]);
  }
}, 600_000);
