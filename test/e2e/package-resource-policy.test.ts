/**
 * A member's package whose BaseHOT asks Heat for a Keystone role (security
 * review 3, C-1) is refused by the resource-type policy (HEAT_RESOURCE_TYPES,
 * infra/hot/resource-policy.ts) with 422 naming the file, the resource and
 * its type, before anything is written: at instantiate, and at change_vnfpkg
 * to such a package. No op occ, no stack, no role.
 */
import { sampleVariant, twoVduVnfV2 } from '../../samples/variant';
import path from 'node:path';
import { readState } from '../harness/state';
import { adminToken, call, onboard, opIdFrom, stacksNamed, waitOpState } from '../support/api';
import { keystoneUser, type TestUser } from '../support/identity';

const SAMPLE = path.resolve(__dirname, '../../samples/two_vdu_vnf');
const TOP = 'BaseHOT/simple/two_vdu_vnf.yaml';
const H = { Version: '2.0.0' };
const run = Date.now().toString(36);
let mallory: TestUser;

/** The two-VDU sample, its top template asking Heat to make `user` admin of the admin project. */
const evil = (user: string, version: '1.0' | '2.0' = '1.0') => sampleVariant(SAMPLE, {
  editYaml: (p, t) => {
    const text = version === '2.0' ? twoVduVnfV2(t) : t;
    return p === TOP ? text.replace('\nresources:\n', `\nresources:\n  pwn:\n    type: OS::Keystone::UserRoleAssignment\n    properties: { user: ${user}, roles: [ { role: admin, project: admin } ] }\n`) : text;
  },
});

async function keystone(pathAndQuery: string): Promise<any> {
  const r = await fetch(`${readState().keystoneUrl}${pathAndQuery}`, { headers: { 'x-auth-token': await adminToken() } });
  expect(r.status).toBe(200);
  return r.json();
}

async function rolesOf(user: string): Promise<string[]> {
  const id = (await keystone(`/users?name=${user}`)).users[0].id;
  const assignments = (await keystone(`/role_assignments?user.id=${id}&include_names`)).role_assignments;
  return assignments.map((a: any) => `${a.role.name}@${a.scope.project?.name ?? JSON.stringify(a.scope)}`).sort();
}

const member = async () => mallory.headers(H);
const expectRefusal = (r: { status: number; body: any }) => {
  expect([r.status, r.body.detail]).toEqual([422, expect.stringContaining(`${TOP}: resource "pwn" of type OS::Keystone::UserRoleAssignment`)]);
  expect(r.body.invalidResources).toEqual([{ file: TOP, resource: 'pwn', type: 'OS::Keystone::UserRoleAssignment' }]);
};

beforeAll(async () => {
  mallory = await keystoneUser(`policy-${run}`, `mallory-${run}`, 'member');
});

test('instantiate: 422 naming the file, resource and type; no op occ, no stack, no role', async () => {
  const pkg = evil(mallory.name);
  expect((await onboard(pkg.zip, await member())).onboardingState).toBe('ONBOARDED');
  const id = (await call('POST', '/vnflcm/v2/vnf_instances', { vnfdId: pkg.vnfdId }, await member())).body.id;
  const r = await call('POST', `/vnflcm/v2/vnf_instances/${id}/instantiate`, {
    flavourId: 'simple', extVirtualLinks: [{ id: 'n', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
  }, await member());
  expectRefusal(r);
  expect((await call('GET', `/vnflcm/v2/vnf_instances/${id}`, undefined, await member())).body.instantiationState).toBe('NOT_INSTANTIATED');
  // filtered in the store: the project's other op occs may fill more than a page
  expect((await call('GET', `/vnflcm/v2/vnf_lcm_op_occs?filter=(eq,vnfInstanceId,${id})`, undefined, await member())).body).toEqual([]);
  expect(await stacksNamed(`vnf-${id}`)).toEqual([]);
  expect(await rolesOf(mallory.name)).toEqual([`member@policy-${run}`]);
});

test('change_vnfpkg to such a package: 422, the instance stays on its package', async () => {
  const clean = sampleVariant(SAMPLE);
  await onboard(clean.zip, await member());
  const target = evil(mallory.name, '2.0');
  await onboard(target.zip, await member());
  const id = (await call('POST', '/vnflcm/v2/vnf_instances', { vnfdId: clean.vnfdId }, await member())).body.id;
  const inst = await call('POST', `/vnflcm/v2/vnf_instances/${id}/instantiate`, {
    flavourId: 'simple', instantiationLevelId: 'instantiation_level_1',
    extVirtualLinks: [{ id: 'n', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
  }, await member());
  expect((await waitOpState(opIdFrom(inst), ['COMPLETED', 'FAILED_TEMP'], 60_000, 'v2')).operationState).toBe('COMPLETED');
  try {
    const r = await call('POST', `/vnflcm/v2/vnf_instances/${id}/change_vnfpkg`, {
      vnfdId: target.vnfdId, additionalParams: { upgrade_type: 'RollingUpdate', vdu_params: [{ vdu_id: 'VDU1' }] },
    }, await member());
    expectRefusal(r);
    expect((await call('GET', `/vnflcm/v2/vnf_instances/${id}`, undefined, await member())).body.vnfdId).toBe(clean.vnfdId);
    expect(await rolesOf(mallory.name)).toEqual([`member@policy-${run}`]);
  } finally {
    const t = await call('POST', `/vnflcm/v2/vnf_instances/${id}/terminate`, { terminationType: 'FORCEFUL' }, await member());
    expect((await waitOpState(opIdFrom(t), ['COMPLETED', 'FAILED_TEMP'], 60_000, 'v2')).operationState).toBe('COMPLETED');
  }
}, 120_000);
