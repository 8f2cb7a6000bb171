/**
 * Least privilege on the shared default VIM (issue 22 item 1, security
 * review 3 C-1): a member of another project than the VIM's owner acts there
 * through a Keystone trust of their own (api/vim-access.ts), never with the
 * VIM's admin login. The stack, the servers and the ports are the member's
 * project's; the trust holds member and reader only, so even a template
 * asking Heat for a Keystone role gets nowhere with it; a trust that stopped
 * working is made again by the next member's request.
 */
import path from 'node:path';
import { KeystoneSession } from '../../infra/openstack/keystone';
import { HeatClient } from '../../infra/openstack/heat';
import { OpenStackHttpError } from '../../infra/openstack/http';
import { sampleVariant } from '../../samples/variant';
import { readState } from '../harness/state';
import { adminHeat, adminToken, call, onboard, opIdFrom, waitOpState } from '../support/api';
import { keystoneUser, type TestUser } from '../support/identity';

const SAMPLE = path.resolve(__dirname, '../../samples/two_vdu_vnf');
const H = { Version: '2.0.0' };
const run = Date.now().toString(36);
const project = `trust-${run}`;
let alice: TestUser;
let bob: TestUser;
let vnfdId: string;

async function keystone(method: string, pathAndQuery: string): Promise<any> {
  const r = await fetch(`${readState().keystoneUrl}${pathAndQuery}`, { method, headers: { 'x-auth-token': await adminToken() } });
  expect([200, 204]).toContain(r.status);
  return r.status === 204 ? undefined : r.json();
}
const userId = async (name: string) => (await keystone('GET', `/users?name=${name}`)).users[0].id as string;
/** The trusts `name` gave the VIM's login (Heat's own trusts, to its service user, are not these). */
const trustsOf = async (name: string) => ((await keystone('GET', `/OS-TRUST/trusts?trustor_user_id=${await userId(name)}`)).trusts as any[])
  .filter((t) => t.trustee_user_id === adminId);
/** Trusts to the VIM's login on the VIM's own project (other files' projects make theirs at the same time). */
const trustsToVimLogin = async () => ((await keystone('GET', `/OS-TRUST/trusts?trustee_user_id=${adminId}`)).trusts as any[]).filter((t) => t.project_id === adminProjectId).length;
let adminId: string;
let adminProjectId: string;
const rolesOf = async (name: string) => ((await keystone('GET', `/role_assignments?user.id=${await userId(name)}&include_names`)).role_assignments as any[])
  .map((a) => `${a.role.name}@${a.scope.project?.name}`).sort();

/** The user's own view of the cloud: Heat and Nova in their project. */
function cloudOf(u: TestUser) {
  const { session } = u;
  const get = async (type: string, p: string) => {
    const r = await fetch(`${await session.endpoint(type)}${p}`, { headers: { 'x-auth-token': (await session.getToken()).value } });
    return { status: r.status, body: r.status === 200 ? await r.json() as any : undefined };
  };
  return { heat: new HeatClient(session), get };
}

async function instantiate(u: TestUser): Promise<string> {
  const id = (await call('POST', '/vnflcm/v2/vnf_instances', { vnfdId }, await u.headers(H))).body.id;
  const r = await call('POST', `/vnflcm/v2/vnf_instances/${id}/instantiate`, {
    flavourId: 'simple', extVirtualLinks: [{ id: 'n', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
  }, await u.headers(H));
  expect(r.status).toBe(202);
  const op = await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP'], 90_000, 'v2');
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  return id;
}

async function terminate(u: TestUser, id: string): Promise<void> {
  const t = await call('POST', `/vnflcm/v2/vnf_instances/${id}/terminate`, { terminationType: 'FORCEFUL' }, await u.headers(H));
  const op = await waitOpState(opIdFrom(t), ['COMPLETED', 'FAILED_TEMP'], 90_000, 'v2');
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
}

beforeAll(async () => {
  adminId = await userId('admin'); // the default VIM's login
  adminProjectId = ((await keystone('GET', '/projects?name=admin')).projects as any[])[0].id;
  alice = await keystoneUser(project, `alice-${run}`, 'member');
  bob = await keystoneUser(project, `bob-${run}`, 'member');
  const pkg = sampleVariant(SAMPLE);
  vnfdId = pkg.vnfdId;
  expect((await onboard(pkg.zip, await alice.headers())).onboardingState).toBe('ONBOARDED');
});

test('a member\'s instance on the default VIM: stack, servers and ports in the member\'s project, through a trust with member and reader only', async () => {
  const id = await instantiate(alice);
  const inst = (await call('GET', `/vnflcm/v2/vnf_instances/${id}`, undefined, await alice.headers(H))).body;
  const defaultVim = (await call('GET', '/v1.0/vims', undefined, await alice.headers())).body.vims as any[];
  expect(defaultVim.map((v) => v.name)).toEqual(['default']); // the project's access is not a VIM of its own
  expect((Object.values(inst.vimConnectionInfo) as any[]).map((v) => v.vimId)).toEqual([defaultVim[0].id]); // the VIM it shows is the shared one

  // Heat: the stack is the project's (its own Heat finds it), owned by alice, not by the VIM's admin
  const own = cloudOf(alice);
  const stack = await own.heat.findStack(`vnf-${id}`) as any;
  expect(stack?.stack_status).toBe('CREATE_COMPLETE');
  expect(stack.stack_owner).toBe(alice.name);
  expect(stack.links[0].href).toContain(`/v1/${alice.projectId}/stacks/`);
  // Nova and Neutron: the servers and their ports are the project's, made as alice (impersonation)
  const aliceId = await userId(alice.name);
  for (const v of inst.instantiatedVnfInfo.vnfcResourceInfo) {
    const server = (await own.get('compute', `/servers/${v.computeResource.resourceId}`)).body.server;
    expect([server.tenant_id, server.user_id]).toEqual([alice.projectId, aliceId]);
  }
  const ports = (await own.get('network', `/v2.0/ports?device_id=${inst.instantiatedVnfInfo.vnfcResourceInfo[0].computeResource.resourceId}`)).body.ports as any[];
  expect(ports.length).toBeGreaterThan(0);
  expect(ports.every((p) => p.project_id === alice.projectId)).toBe(true);

  // the trust: alice -> the VIM's login, in alice's project, member and reader only
  const [trust] = await trustsOf(alice.name);
  expect(trust).toMatchObject({ project_id: alice.projectId, impersonation: true });
  const roles = (await keystone('GET', `/OS-TRUST/trusts/${trust.id}`)).trust.roles as any[];
  expect(roles.map((r) => r.name).sort()).toEqual(['member', 'reader']);

  // what the product acts with for this project cannot make anyone admin, whatever the template asks (C-1)
  const asProduct = new HeatClient(new KeystoneSession({ authUrl: readState().keystoneUrl, username: 'admin', password: readState().adminPassword, project: 'admin', trustId: trust.id }));
  const refused = await asProduct.createStack(`pwn-${run}`, {
    template: { heat_template_version: '2018-08-31', resources: { pwn: { type: 'OS::Keystone::UserRoleAssignment', properties: { user: alice.name, roles: [{ role: 'admin', project: 'admin' }] } } } },
  }).then(() => undefined, (e) => e);
  expect(refused).toBeInstanceOf(OpenStackHttpError);
  expect((refused as OpenStackHttpError).status).toBe(403);
  expect(await rolesOf(alice.name)).toEqual([`member@${project}`]);

  await terminate(alice, id);
  expect(await own.heat.findStack(`vnf-${id}`)).toBeNull();
}, 240_000);

test('a trust that stopped working (deleted) is made again by the next member\'s request; the project\'s instances follow it', async () => {
  const first = await instantiate(alice);
  const [old] = await trustsOf(alice.name);
  await keystone('DELETE', `/OS-TRUST/trusts/${old.id}`);
  const second = await instantiate(bob); // bob's request finds the trust gone and makes one of his own
  const [fresh] = await trustsOf(bob.name);
  expect(fresh.project_id).toBe(bob.projectId);
  await terminate(bob, first); // alice's instance acts through the project's access: bob's trust now
  await terminate(bob, second);
}, 300_000);

test('an admin of the VIM\'s own project still acts with the VIM\'s login: no trust', async () => {
  const before = await trustsToVimLogin();
  const pkg = sampleVariant(SAMPLE);
  await onboard(pkg.zip);
  const id = (await call('POST', '/vnflcm/v2/vnf_instances', { vnfdId: pkg.vnfdId }, H)).body.id;
  const r = await call('POST', `/vnflcm/v2/vnf_instances/${id}/instantiate`, {
    flavourId: 'simple', extVirtualLinks: [{ id: 'n', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
  }, H);
  expect((await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP'], 90_000, 'v2')).operationState).toBe('COMPLETED');
  const stack = await adminHeat().findStack(`vnf-${id}`) as any;
  expect([stack.stack_status, stack.stack_owner]).toEqual(['CREATE_COMPLETE', 'admin']);
  expect(await trustsToVimLogin()).toBe(before);
  const t = await call('POST', `/vnflcm/v2/vnf_instances/${id}/terminate`, { terminationType: 'FORCEFUL' }, H);
  expect((await waitOpState(opIdFrom(t), ['COMPLETED', 'FAILED_TEMP'], 90_000, 'v2')).operationState).toBe('COMPLETED');
}, 240_000);
