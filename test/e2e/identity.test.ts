/**
 * Identity and tenancy through the API, with projects and users made in the
 * real Keystone: tokens checked as keystonemiddleware does (401 with
 * WWW-Authenticate, revocation within the cache TTL), roles (reader reads,
 * member writes), and isolation: another project's packages, instances, op
 * occs and VIMs are 404 and never listed; the shared default VIM cannot be
 * repointed; a refused request writes nothing.
 */
import path from 'node:path';
import { sampleVariant } from '../../samples/variant';
import { readState } from '../harness/state';
import { adminToken, call, onboard, opIdFrom, waitOpState } from '../support/api';
import { keystoneUser, type TestUser } from '../support/identity';
import { fetchAgainIfIdleClosed } from '../support/fetch-again';

const SAMPLE = path.resolve(__dirname, '../../samples/two_vdu_vnf');
const body = (extra: Record<string, unknown> = {}) => ({
  flavourId: 'simple', extVirtualLinks: [{ id: 'n', resourceId: 'public', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }], ...extra,
});

let bMember: TestUser;
let bReader: TestUser;
let cMember: TestUser;
/** Project B's package and instance (made by its member). */
let bPkg: string;
let bVnfd: string;
let bInst: string;

/** Calls as a user. */
const as = async (u: TestUser, method: string, p: string, b?: unknown, extra: Record<string, string> = {}) => call(method, p, b, await u.headers(extra));

async function onboardAs(u: TestUser): Promise<{ id: string; vnfdId: string }> {
  const { zip, vnfdId } = sampleVariant(SAMPLE);
  const created = await as(u, 'POST', '/vnfpkgm/v1/vnf_packages', {});
  expect(created.status).toBe(201);
  expect((await as(u, 'PUT', `/vnfpkgm/v1/vnf_packages/${created.body.id}/package_content`, zip)).status).toBe(202);
  for (let i = 0; i < 100; i++) {
    const p = (await as(u, 'GET', `/vnfpkgm/v1/vnf_packages/${created.body.id}`)).body;
    if (p.onboardingState === 'ONBOARDED') return { id: p.id, vnfdId };
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('onboarding did not finish');
}

beforeAll(async () => {
  const run = Date.now().toString(36);
  bMember = await keystoneUser(`tenant-b-${run}`, `b-member-${run}`, 'member');
  bReader = await keystoneUser(`tenant-b-${run}`, `b-reader-${run}`, 'reader');
  cMember = await keystoneUser(`tenant-c-${run}`, `c-member-${run}`, 'member');
  ({ id: bPkg, vnfdId: bVnfd } = await onboardAs(bMember));
  const inst = await as(bMember, 'POST', '/vnflcm/v1/vnf_instances', { vnfdId: bVnfd });
  expect(inst.status).toBe(201);
  bInst = inst.body.id;
});

/** A Keystone call with `token` as the caller's and the subject token. */
async function keystone(method: string, p: string, token: string, body?: unknown) {
  // Keystone's gunicorn closes idle keep-alive sockets after 2 s: CI #58 met one (ECONNRESET) on a reused socket
  const r = await fetchAgainIfIdleClosed(`${readState().keystoneUrl}${p}`, {
    method, headers: { 'x-auth-token': token, 'x-subject-token': token, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined,
  });
  return { status: r.status, body: r.status === 204 ? undefined : await r.json() as any };
}

describe('tokens', () => {
  test('no token or a bad one: 401 with WWW-Authenticate naming the Keystone; discovery and health need none', async () => {
    for (const headers of [{ 'x-auth-token': '' }, { 'x-auth-token': 'gAAAAAnot-a-token' }]) {
      const r = await call('GET', '/vnflcm/v1/vnf_instances', undefined, headers);
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe(`Keystone uri="${readState().keystoneUrl}"`);
      expect(r.body.status).toBe(401);
    }
    const vims = await call('GET', '/v1.0/vims', undefined, { 'x-auth-token': '' });
    expect(vims.status).toBe(401);
    expect(vims.body.TackerError.type).toBe('Unauthorized');
    // the probes: /readyz asks the store, Temporal and Keystone, and names them without reasons
    const ready = await call('GET', '/readyz', undefined, { 'x-auth-token': '' });
    expect([ready.status, ready.body]).toEqual([200, { status: 'ready', checks: { store: 'ok', temporal: 'ok', keystone: 'ok' } }]);
    for (const p of ['/', '/healthz', '/vnflcm/api_versions', '/vnflcm/v1/api_versions', '/vnflcm/v2/api_versions', '/vnfpkgm/v1/api_versions']) {
      expect([p, (await call('GET', p, undefined, { 'x-auth-token': '' })).status]).toEqual([p, 200]);
    }
  });

  test('an application credential with access rules calls only what they name (security review 3, Low 1)', async () => {
    const ks = keystone;
    const own = await bMember.token();
    const userId = (await ks('GET', '/auth/tokens', own)).body.token.user.id;
    const made = await ks('POST', `/users/${userId}/application_credentials`, own, { application_credential: {
      name: `rules-${Date.now().toString(36)}`, access_rules: [{ service: 'nfv-orchestration', method: 'GET', path: '/vnflcm/v1/vnf_instances' }],
    } });
    expect(made.status).toBe(201);
    const { id, secret } = made.body.application_credential;
    try {
      const issued = await fetch(`${readState().keystoneUrl}/auth/tokens`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ auth: { identity: { methods: ['application_credential'], application_credential: { id, secret } } } }),
      });
      expect(issued.status).toBe(201);
      const restricted = { 'x-auth-token': issued.headers.get('x-subject-token')! };
      expect((await call('GET', '/vnflcm/v1/vnf_instances', undefined, restricted)).status).toBe(200);
      const other = await call('GET', '/vnfpkgm/v1/vnf_packages', undefined, restricted);
      expect([other.status, other.body.detail]).toEqual([401, 'the application credential\'s access rules do not allow GET /vnfpkgm/v1/vnf_packages on nfv-orchestration']);
      expect((await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId: bVnfd }, restricted)).status).toBe(401);
      expect((await call('GET', '/v1/clusters', undefined, { ...restricted, 'OpenStack-API-Version': 'container-infra latest' })).status).toBe(401);
    } finally {
      await ks('DELETE', `/users/${userId}/application_credentials/${id}`, own);
    }
  });

  test('concurrent callers are each authorised with their own token (the embedded Keystone keeps it per request)', async () => {
    // Keystone's auth middleware kept the token it validated on itself, one for the
    // process: under concurrent requests an application credential was made from
    // another caller's token (a 400 "Could not find role assignment", or that
    // caller's roles). runtime/openstack/keystone_wsgi.py keeps it per thread.
    const run = Date.now().toString(36);
    const users = await Promise.all(Array.from({ length: 10 }, (_, i) =>
      keystoneUser(`tenant-conc-${run}-${i}`, `conc-${run}-${i}`, i % 2 ? 'reader' : 'member')));
    // an operator granting roles meanwhile: each grant empties Keystone's role cache, so validations read the database
    const admin = await adminToken();
    const other = await keystoneUser(`tenant-conc-${run}-x`, `conc-${run}-x`, 'reader');
    const grant = `/projects/${other.projectId}/users/${(await keystone('GET', '/auth/tokens', await other.token())).body.token.user.id}/roles/${(await keystone('GET', '/roles?name=reader', admin)).body.roles[0].id}`;
    let creating = true;
    const grants = (async () => { while (creating) expect((await keystone('PUT', grant, admin)).status).toBe(204); })();
    const outcomes = await Promise.all(users.map(async (u, i) => {
      const token = await u.token();
      const userId = (await keystone('GET', '/auth/tokens', token)).body.token.user.id;
      const seen: string[] = [];
      for (let k = 0; k < 20; k++) {
        await keystone('GET', '/auth/tokens', token);
        const made = await keystone('POST', `/users/${userId}/application_credentials`, token, { application_credential: { name: `conc-${k}` } });
        seen.push(made.status === 201
          ? `201 ${made.body.application_credential.roles.map((r: { name: string }) => r.name).sort().join(',')}`
          : `${made.status} ${made.body?.error?.message}`);
      }
      return { user: u.name, expected: i % 2 ? '201 reader' : '201 member,reader', seen: [...new Set(seen)] };
    })).finally(() => { creating = false; });
    await grants;
    expect(outcomes.filter((o) => o.seen.join() !== o.expected)).toEqual([]);
  });

  test('a revoked token stops working within the cache TTL', async () => {
    const u = await keystoneUser(`tenant-c-${Date.now().toString(36)}`, `revoked-${Date.now().toString(36)}`, 'member');
    const token = await u.token();
    expect((await call('GET', '/vnflcm/v1/vnf_instances', undefined, { 'x-auth-token': token })).status).toBe(200);
    const revoke = await fetch(`${readState().keystoneUrl}/auth/tokens`, { method: 'DELETE', headers: { 'x-auth-token': token, 'x-subject-token': token } });
    expect(revoke.status).toBe(204);
    await new Promise((r) => setTimeout(r, 2500)); // AUTH_TOKEN_CACHE_TTL_S=2 in the harness
    expect((await call('GET', '/vnflcm/v1/vnf_instances', undefined, { 'x-auth-token': token })).status).toBe(401);
  });
});

describe('roles', () => {
  test('a reader reads its project and may not write', async () => {
    expect((await as(bReader, 'GET', `/vnfpkgm/v1/vnf_packages/${bPkg}`)).status).toBe(200);
    expect((await as(bReader, 'GET', `/vnflcm/v1/vnf_instances/${bInst}`)).status).toBe(200);
    const refused = await as(bReader, 'POST', '/vnflcm/v1/vnf_instances', { vnfdId: bVnfd });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('vnf_instances:write');
    expect((await as(bReader, 'POST', `/vnflcm/v1/vnf_instances/${bInst}/instantiate`, body())).status).toBe(403);
    expect((await as(bReader, 'POST', '/vnfpkgm/v1/vnf_packages', {})).status).toBe(403);
    expect((await as(bReader, 'GET', '/vnflcm/v1/vnf_instances')).body.map((i: any) => i.id)).toContain(bInst);
  });
});

describe('another project sees nothing of B', () => {
  test('packages, instances and op occs: 404 by id, absent from lists, untouchable', async () => {
    const instantiate = await as(bMember, 'POST', `/vnflcm/v1/vnf_instances/${bInst}/instantiate`, body());
    expect(instantiate.status).toBe(202);
    const opId = opIdFrom(instantiate);
    expect((await waitOpState(opId, ['COMPLETED', 'FAILED_TEMP'])).operationState).toBe('COMPLETED');
    for (const p of [`/vnfpkgm/v1/vnf_packages/${bPkg}`, `/vnfpkgm/v1/vnf_packages/${bPkg}/vnfd`, `/vnflcm/v1/vnf_instances/${bInst}`, `/vnflcm/v2/vnf_instances/${bInst}`, `/vnflcm/v1/vnf_lcm_op_occs/${opId}`]) {
      expect([p, (await as(cMember, 'GET', p)).status]).toEqual([p, 404]);
    }
    expect((await as(cMember, 'GET', '/vnfpkgm/v1/vnf_packages')).body.map((p: any) => p.id)).not.toContain(bPkg);
    expect((await as(cMember, 'GET', '/vnflcm/v1/vnf_instances')).body.map((i: any) => i.id)).not.toContain(bInst);
    expect((await as(cMember, 'GET', '/vnflcm/v1/vnf_lcm_op_occs')).body.map((o: any) => o.id)).not.toContain(opId);
    // writes on B's resources are 404 too, and change nothing
    expect((await as(cMember, 'POST', `/vnflcm/v1/vnf_instances/${bInst}/terminate`, { terminationType: 'FORCEFUL' })).status).toBe(404);
    expect((await as(cMember, 'DELETE', `/vnflcm/v1/vnf_instances/${bInst}`)).status).toBe(404);
    expect((await as(cMember, 'PATCH', `/vnfpkgm/v1/vnf_packages/${bPkg}`, { operationalState: 'DISABLED' })).status).toBe(404);
    expect((await as(cMember, 'POST', `/vnflcm/v1/vnf_lcm_op_occs/${opId}/retry`)).status).toBe(404);
    // C cannot build on B's VNFD either (its own project has no package of that vnfdId)
    expect((await as(cMember, 'POST', '/vnflcm/v1/vnf_instances', { vnfdId: bVnfd })).status).toBe(422);
    expect((await as(bMember, 'GET', `/vnfpkgm/v1/vnf_packages/${bPkg}`)).body.operationalState).toBe('ENABLED');
    expect((await as(bMember, 'GET', `/vnflcm/v1/vnf_instances/${bInst}`)).body.instantiationState).toBe('INSTANTIATED');
  });

  test('admin lists its own project by default, every project with all_projects=true, and reads any by id', async () => {
    // filtered in the store: every project's instances fill more than a page
    expect((await call('GET', `/vnflcm/v1/vnf_instances?filter=(eq,id,${bInst})`)).body).toEqual([]);
    expect((await call('GET', `/vnflcm/v1/vnf_instances?all_projects=true&filter=(eq,id,${bInst})`)).body.map((i: any) => i.id)).toEqual([bInst]);
    expect((await call('GET', `/vnfpkgm/v1/vnf_packages?all_projects=true&filter=(eq,id,${bPkg})`)).body.map((p: any) => p.id)).toEqual([bPkg]);
    expect((await call('GET', `/vnflcm/v1/vnf_instances/${bInst}`)).status).toBe(200);
    // all_projects means nothing to a member
    expect((await as(cMember, 'GET', '/vnflcm/v1/vnf_instances?all_projects=true')).body.map((i: any) => i.id)).not.toContain(bInst);
  });

  test('the admin role of any other project is a member of that project only: no all_projects, no reach by id, no quotas', async () => {
    const run = Date.now().toString(36);
    const cAdmin = await keystoneUser(`tenant-c-${run}`, `c-admin-${run}`, 'admin');
    expect((await as(cAdmin, 'GET', '/vnflcm/v1/vnf_instances?all_projects=true')).body.map((i: any) => i.id)).not.toContain(bInst);
    expect((await as(cAdmin, 'GET', `/vnflcm/v1/vnf_instances/${bInst}`)).status).toBe(404);
    expect((await as(cAdmin, 'GET', `/vnfpkgm/v1/vnf_packages/${bPkg}`)).status).toBe(404);
    expect((await as(cAdmin, 'GET', '/v1/clusters?all_tenants=True')).status).toBe(200);
    expect((await as(cAdmin, 'GET', '/v1/quotas', undefined, { 'OpenStack-API-Version': 'container-infra 1.10' })).status).toBe(403);
    const quota = await as(cAdmin, 'POST', '/v1/quotas', { project_id: bMember.projectId, resource: 'Cluster', hard_limit: 0 }, { 'OpenStack-API-Version': 'container-infra 1.10' });
    expect(quota.status).toBe(403);
    // and still writes its own project, as a member does
    expect((await as(cAdmin, 'POST', '/vnfpkgm/v1/vnf_packages', {})).status).toBe(201);
  });

  test('a project onboards a vnfdId another project has (no shadowing across projects)', async () => {
    const { zip } = sampleVariant(SAMPLE);
    const mine = await onboard(zip); // admin's project
    expect(mine.onboardingState).toBe('ONBOARDED');
    const created = await as(cMember, 'POST', '/vnfpkgm/v1/vnf_packages', {});
    expect((await as(cMember, 'PUT', `/vnfpkgm/v1/vnf_packages/${created.body.id}/package_content`, zip)).status).toBe(202);
    const pc = await (async () => {
      for (let i = 0; i < 100; i++) {
        const p = (await as(cMember, 'GET', `/vnfpkgm/v1/vnf_packages/${created.body.id}`)).body;
        if (p.onboardingState !== 'PROCESSING' && p.onboardingState !== 'UPLOADING') return p;
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error('onboarding did not finish');
    })();
    expect(pc.onboardingState).toBe('ONBOARDED');
    const inst = await as(cMember, 'POST', '/vnflcm/v1/vnf_instances', { vnfdId: mine.vnfdId });
    expect(inst.status).toBe(201);
    expect(inst.body.vnfPkgId).toBe(pc.id); // its own package, not the admin's
  });
});

describe('VIMs', () => {
  let bVim: string;
  let defaultVim: any;
  const vimBody = (u: TestUser, name: string) => ({
    vim: {
      name, type: 'openstack', auth_url: readState().keystoneUrl, is_default: false,
      auth_cred: { username: u.name, password: u.password, user_domain_name: 'Default', cert_verify: 'True' },
      vim_project: { name: u.project, project_domain_name: 'Default' },
    },
  });

  beforeAll(async () => {
    defaultVim = (await call('GET', '/v1.0/vims.json')).body.vims.find((v: any) => v.name === 'default');
    expect(defaultVim).toBeDefined();
    const reg = await as(bMember, 'POST', '/v1.0/vims.json', vimBody(bMember, `b-vim-${Date.now()}`));
    expect(reg.status).toBe(201);
    expect(reg.body.vim.tenant_id).toBe(bMember.projectId);
    expect(JSON.stringify(reg.body)).not.toContain(bMember.password);
    bVim = reg.body.vim.id;
  });

  test('a VIM belongs to its project; the default VIM is shared read-only', async () => {
    const seenByC = (await as(cMember, 'GET', '/v1.0/vims')).body.vims.map((v: any) => v.id);
    expect(seenByC).toContain(defaultVim.id);
    // whom the shared VIM logs in as is not shown to the projects that use it
    const shown = (await as(cMember, 'GET', `/v1.0/vims/${defaultVim.id}`)).body.vim;
    expect([shown.auth_cred.username, shown.vim_project.name]).toEqual(['***', '***']);
    expect((await call('GET', `/v1.0/vims/${defaultVim.id}`)).body.vim.auth_cred.username).toBe('admin'); // its owner sees it
    expect(seenByC).not.toContain(bVim);
    expect((await as(cMember, 'GET', `/v1.0/vims/${bVim}`)).status).toBe(404);
    expect((await as(cMember, 'DELETE', `/v1.0/vims/${bVim}`)).status).toBe(404);
    const repoint = await as(cMember, 'PUT', `/v1.0/vims/${defaultVim.id}`, { vim: { auth_cred: { username: 'a', password: 'b' } } });
    expect(repoint.status).toBe(403);
    expect(repoint.body.TackerError.type).toBe('Forbidden');
    expect((await as(bMember, 'GET', `/v1.0/vims/${bVim}.json`)).body.vim.auth_cred.password).toBeUndefined();
    const wrong = await as(bMember, 'POST', '/v1.0/vims', { vim: { ...vimBody(bMember, 'bad').vim, auth_cred: { username: bMember.name, password: 'wrong-password' } } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.TackerError.message).toContain('VIM authentication failed');
    // what another service answers is not echoed (security review 3, M-1): the simulator's /sim refuses with a text of its own
    const probe = await as(bMember, 'POST', '/v1.0/vims', { vim: { ...vimBody(bMember, 'probe').vim, auth_url: `${readState().vimsimUrl}/sim` } });
    expect([probe.status, probe.body.TackerError.message]).toEqual([400, `VIM authentication failed at ${readState().vimsimUrl}/sim: it answered 401`]);
  });

  test('inline vimConnectionInfo cannot repoint the default VIM or use another project\'s VIM, and a refused request writes nothing', async () => {
    const inst = (await as(cMember, 'POST', '/vnflcm/v1/vnf_instances', { vnfdId: (await onboardAs(cMember)).vnfdId })).body.id;
    const hostile = { vim1: { vimId: defaultVim.id, vimType: 'ETSINFV.OPENSTACK_KEYSTONE.V_3', interfaceInfo: { endpoint: 'http://127.0.0.1:1/v3' }, accessInfo: { username: 'a', password: 'b', project: 'x' } } };
    const r = await as(cMember, 'POST', `/vnflcm/v2/vnf_instances/${inst}/instantiate`, body({ vimConnectionInfo: hostile }), { Version: '2.0.0' });
    expect(r.status).toBe(403);
    const borrowed = await as(cMember, 'POST', `/vnflcm/v2/vnf_instances/${inst}/instantiate`, body({ vimConnectionInfo: { vim1: { vimId: bVim, vimType: 'ETSINFV.OPENSTACK_KEYSTONE.V_3' } } }), { Version: '2.0.0' });
    expect(borrowed.status).toBe(422);
    const overwrite = await as(cMember, 'POST', `/vnflcm/v2/vnf_instances/${inst}/instantiate`, body({ vimConnectionInfo: { vim1: { ...hostile.vim1, vimId: bVim } } }), { Version: '2.0.0' });
    expect(overwrite.status).toBe(422);
    // H2: the same against an instance that is busy (409): nothing is written either
    const busy = await as(bMember, 'POST', `/vnflcm/v1/vnf_instances/${bInst}/instantiate`, body({ vimConnectionInfo: [{ ...hostile.vim1, vimId: bVim }] }));
    expect(busy.status).toBe(409);
    // the default VIM's own project (admin) cannot repoint it through an LCM request either
    const mine = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId: (await onboard(sampleVariant(SAMPLE).zip)).vnfdId })).body.id;
    expect((await call('POST', `/vnflcm/v2/vnf_instances/${mine}/instantiate`, body({ vimConnectionInfo: hostile }), { Version: '2.0.0' })).status).toBe(403);
    expect((await call('GET', `/v1.0/vims/${defaultVim.id}`)).body.vim.auth_url).toBe(defaultVim.auth_url);
    expect((await as(bMember, 'GET', `/v1.0/vims/${bVim}`)).body.vim.auth_url).toBe(readState().keystoneUrl);
    expect((await as(cMember, 'GET', `/vnflcm/v1/vnf_instances/${inst}`)).body.instantiationState).toBe('NOT_INSTANTIATED');
    // and the default VIM still works for everyone
    const ok = await as(cMember, 'POST', `/vnflcm/v1/vnf_instances/${inst}/instantiate`, body());
    expect(ok.status).toBe(202);
    expect((await waitOpState(opIdFrom(ok), ['COMPLETED', 'FAILED_TEMP'])).operationState).toBe('COMPLETED');
  });

  test('an instance can be instantiated on its project\'s own registered VIM', async () => {
    const inst = (await as(bMember, 'POST', '/vnflcm/v1/vnf_instances', { vnfdId: bVnfd })).body.id;
    const r = await as(bMember, 'POST', `/vnflcm/v2/vnf_instances/${inst}/instantiate`, body({ vimConnectionInfo: { vim1: { vimId: bVim, vimType: 'ETSINFV.OPENSTACK_KEYSTONE.V_3' } } }), { Version: '2.0.0' });
    expect(r.status).toBe(202);
    expect((await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP'])).operationState).toBe('COMPLETED');
    const shown = (await as(bMember, 'GET', `/vnflcm/v2/vnf_instances/${inst}`, undefined, { Version: '2.0.0' })).body;
    expect(shown.instantiatedVnfInfo.vnfcResourceInfo[0].computeResource.vimConnectionId).toBe(bVim);
    expect((await as(bMember, 'DELETE', `/v1.0/vims/${bVim}`)).status).toBe(409); // in use
  });
});

test('an instance with an operation running cannot be deleted (the stack would be orphaned)', async () => {
  const inst = (await as(bMember, 'POST', '/vnflcm/v1/vnf_instances', { vnfdId: bVnfd })).body.id;
  const r = await as(bMember, 'POST', `/vnflcm/v1/vnf_instances/${inst}/instantiate`, body());
  expect(r.status).toBe(202);
  const del = await as(bMember, 'DELETE', `/vnflcm/v1/vnf_instances/${inst}`);
  expect(del.status).toBe(409);
  expect(del.body.detail).toMatch(/INSTANTIATE/);
  expect((await waitOpState(opIdFrom(r), ['COMPLETED', 'FAILED_TEMP'])).operationState).toBe('COMPLETED');
});
