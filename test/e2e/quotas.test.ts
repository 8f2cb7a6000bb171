/**
 * Per-project quotas through the API (issue 22 item 7), on an API of this
 * file's own with small limits (the harness's store, Temporal and Keystone):
 * over quota is a 403 naming the limit and its setting, and nothing is half
 * made. The repositories' checks on both stores are in
 * test/component/store-repos.test.ts.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startEm, type Em } from '../../em/server';
import { startComponent, waitForHttp, type Child } from '../../runtime/processes';
import { sampleVariant } from '../../samples/variant';
import { freePort } from '../harness/ports';
import { readState } from '../harness/state';
import { call, onboard, type Res } from '../support/api';
import { keystoneUser, type TestUser } from '../support/identity';
import { LATEST, templateBody } from '../support/magnum';

const SAMPLE = path.resolve(__dirname, '../../samples/two_vdu_vnf');
let api: Child;
let base: string;
let user: TestUser;
let em: Em; // answers the subscriptions' test GET

beforeAll(async () => {
  const s = readState();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const env = {
    ...s.env, ...s.apiEnv, API_PORT: String(port), API_BASE_URL: base,
    QUOTA_PACKAGES: '3', QUOTA_PACKAGE_BYTES: String(sampleVariant(SAMPLE).zip.length * 2 + 1000), QUOTA_INSTANCES: '1', QUOTA_SUBSCRIPTIONS: '1', QUOTA_CLUSTER_NODES: '3',
  };
  api = startComponent('api', env, fs.openSync(path.join(s.logDir, 'quotas-api.log'), 'a'));
  await waitForHttp(`${base}/healthz`, 120_000, api);
  user = await keystoneUser(`quota-${crypto.randomUUID().slice(0, 8)}`, `quota-member-${crypto.randomUUID().slice(0, 8)}`, 'member');
  em = await startEm();
}, 180_000);

afterAll(async () => {
  api?.proc.kill('SIGKILL');
  await api?.exited;
  await em?.close();
});

const as = async (method: string, p: string, body?: unknown, extra: Record<string, string> = {}): Promise<Res> => call(method, p, body, await user.headers(extra), base);
const refusal = (r: Res) => [r.status, String(r.body?.detail ?? r.body?.errors?.[0]?.detail ?? r.text)];

test('packages: the count and the bytes of uploads; a refused upload leaves its package CREATED and empty', async () => {
  const first = await onboard(sampleVariant(SAMPLE).zip, await user.headers(), base);
  expect(first.onboardingState).toBe('ONBOARDED');
  const second = await onboard(sampleVariant(SAMPLE).zip, await user.headers(), base);
  expect(second.onboardingState).toBe('ONBOARDED');
  // the third package's row fits the count, its zip not the bytes
  const third = (await as('POST', '/vnfpkgm/v1/vnf_packages', {})).body.id;
  const upload = await as('PUT', `/vnfpkgm/v1/vnf_packages/${third}/package_content`, sampleVariant(SAMPLE).zip);
  expect(refusal(upload)).toEqual([403, expect.stringMatching(/^Quota exceeded: the project holds \d+ (KiB|bytes) of package content and this adds .* over its limit of .* \(QUOTA_PACKAGE_BYTES\)\.$/)]);
  expect((await as('GET', `/vnfpkgm/v1/vnf_packages/${third}`)).body.onboardingState).toBe('CREATED');
  expect((await as('GET', `/vnfpkgm/v1/vnf_packages/${third}/package_content`)).status).toBe(409);
  // a fourth row is over the count
  const fourth = await as('POST', '/vnfpkgm/v1/vnf_packages', {});
  expect(refusal(fourth)).toEqual([403, 'Quota exceeded: the project holds 3 VNF packages and this adds 1, over its limit of 3 (QUOTA_PACKAGES).']);
  expect((await as('GET', '/vnfpkgm/v1/vnf_packages')).body).toHaveLength(3);
  // deleting makes room
  expect((await as('DELETE', `/vnfpkgm/v1/vnf_packages/${third}`)).status).toBe(204);
  expect((await as('POST', '/vnfpkgm/v1/vnf_packages', {})).status).toBe(201);
});

test('instances and subscriptions', async () => {
  const pkg = (await as('GET', '/vnfpkgm/v1/vnf_packages')).body.find((p: any) => p.onboardingState === 'ONBOARDED');
  const inst = await as('POST', '/vnflcm/v1/vnf_instances', { vnfdId: pkg.vnfdId });
  expect(inst.status).toBe(201);
  const again = await as('POST', '/vnflcm/v1/vnf_instances', { vnfdId: pkg.vnfdId });
  expect(refusal(again)).toEqual([403, 'Quota exceeded: the project holds 1 VNF instances and this adds 1, over its limit of 1 (QUOTA_INSTANCES).']);
  expect((await as('GET', '/vnflcm/v1/vnf_instances')).body).toHaveLength(1);

  const callbackUri = `${em.url}/notifications`;
  expect((await as('POST', '/vnflcm/v1/subscriptions', { callbackUri })).status).toBe(201);
  expect(refusal(await as('POST', '/vnflcm/v1/subscriptions', { callbackUri }))).toEqual([403, 'Quota exceeded: the project holds 1 subscriptions and this adds 1, over its limit of 1 (QUOTA_SUBSCRIPTIONS).']);
  const subs = (await as('GET', '/vnflcm/v1/subscriptions')).body;
  expect(subs).toHaveLength(1);
  expect((await as('DELETE', `/vnflcm/v1/subscriptions/${subs[0].id}`)).status).toBe(204);
});

test('Magnum cluster nodes: a cluster that would take the project over QUOTA_CLUSTER_NODES is refused, and none is made', async () => {
  const t = await as('POST', '/v1/clustertemplates', templateBody(`quota-${crypto.randomUUID().slice(0, 8)}`), LATEST);
  expect(t.status).toBe(201);
  const r = await as('POST', '/v1/clusters', { cluster_template_id: t.body.uuid, name: 'too-big', node_count: 3, master_count: 1 }, LATEST);
  expect(refusal(r)).toEqual([403, 'Quota exceeded: the project holds 0 cluster nodes and this adds 4, over its limit of 3 (QUOTA_CLUSTER_NODES).']);
  expect((await as('GET', '/v1/clusters', undefined, LATEST)).body.clusters).toEqual([]);
});
