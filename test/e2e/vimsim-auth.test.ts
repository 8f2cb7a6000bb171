/**
 * Tokens as keystonemiddleware treats them, against the real Keystone:
 * version documents need none; no token, a made-up token or a revoked one
 * is a 401 in each service's error shape; a trust-scoped token (as Heat's
 * engine uses) acts for the trustor; Keystone out of reach is a 503.
 */
import { freePort } from '../harness/ports';
import { PUBLIC_NETWORK_ID, seedImageId } from '@nfv-orchestrator/vimsim/store/seed';
import { admin, CloudClient, embeddedCloud, ensureMember, ensureServiceUser, http, login, startTestSim, type TestSim } from '../support/vimsim-helpers';

describe('vimsim auth', () => {
  let sim: TestSim;
  const cloud = embeddedCloud();

  beforeAll(async () => {
    sim = await startTestSim();
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('serves the version documents without a token', async () => {
    for (const p of ['/compute/', '/compute/v2.1', '/network/', '/image/versions', '/volume/v3']) {
      expect([p, (await http('GET', `${sim.url}${p}`)).status]).toEqual([p, 200]);
    }
    for (const p of ['/image/', '/volume/']) expect([p, (await http('GET', `${sim.url}${p}`)).status]).toEqual([p, 300]); // Multiple Choices, as Glance and Cinder answer
  });

  it('answers 401 in each service shape without a token or with a bad one', async () => {
    await admin(sim, 'DELETE', '/stats');
    const project = (await login(cloud)).projectId;
    const paths = [`/compute/v2.1/servers`, `/network/v2.0/networks`, `/image/v2/images`, `/volume/v3/${project}/volumes`];
    for (const token of [undefined, 'gAAAAABnot-a-real-token']) {
      const res = await Promise.all(paths.map((p) => http('GET', `${sim.url}${p}`, undefined, token ? { 'X-Auth-Token': token, Accept: 'application/json' } : { Accept: 'application/json' })));
      expect(res.map((r) => r.status)).toEqual([401, 401, 401, 401]);
      expect(res[0].body).toEqual({ unauthorized: { code: 401, message: 'The request you have made requires authentication.' } });
      expect(res[1].body.NeutronError).toMatchObject({ type: 'HTTPUnauthorized' });
      expect(res[2].body).toMatchObject({ code: '401 Unauthorized' });
      expect(res[3].body.unauthorized.code).toBe(401);
      expect(res[0].headers.get('www-authenticate')).toBe(`Keystone uri="${cloud.keystoneUrl}"`);
    }
    expect((await admin(sim, 'GET', '/stats')).body.calls['auth.unauthorized']).toBe(8);
  });

  it('a revoked token it has not seen before is refused', async () => {
    const session = await login(cloud);
    await http('DELETE', `${cloud.keystoneUrl}/auth/tokens`, undefined, { 'X-Auth-Token': session.token, 'X-Subject-Token': session.token });
    expect((await http('GET', `${sim.url}/compute/v2.1/flavors`, undefined, { 'X-Auth-Token': session.token })).status).toBe(401);
  });

  it('a trust-scoped token acts in the trustor project, and key pairs are the trustor user', async () => {
    const trustor = await login(cloud);
    const trusteeAuth = await ensureServiceUser(cloud);
    const trustee = await login(cloud, trusteeAuth.username, trusteeAuth.password, 'service');
    const roles = (await http('GET', `${cloud.keystoneUrl}/roles?name=admin`, undefined, { 'X-Auth-Token': trustor.token })).body.roles;
    const trust = await http('POST', `${cloud.keystoneUrl}/OS-TRUST/trusts`, {
      trust: { trustor_user_id: trustor.userId, trustee_user_id: trustee.userId, project_id: trustor.projectId, impersonation: true, roles: [{ id: roles[0].id }] },
    }, { 'X-Auth-Token': trustor.token });
    expect(trust.status).toBe(201);
    const scoped = await http('POST', `${cloud.keystoneUrl}/auth/tokens`, {
      auth: {
        identity: { methods: ['password'], password: { user: { name: trusteeAuth.username, password: trusteeAuth.password, domain: { name: 'Default' } } } },
        scope: { 'OS-TRUST:trust': { id: trust.body.trust.id } },
      },
    });
    expect(scoped.status).toBe(201);
    expect(scoped.body.token['OS-TRUST:trust']).toBeDefined();
    const token = scoped.headers.get('x-subject-token')!;
    const nova = (method: string, p: string, body?: unknown, t = token) => http(method, `${sim.url}/compute/v2.1${p}`, body, { 'X-Auth-Token': t, 'X-OpenStack-Nova-API-Version': '2.96' });
    const pub = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl trust@vimsim';
    expect((await nova('POST', '/os-keypairs', { keypair: { name: 'by-trust', public_key: pub } })).status).toBe(201);
    expect((await nova('GET', '/os-keypairs/by-trust', undefined, trustor.token)).body.keypair.user_id).toBe(trustor.userId);
    const created = await nova('POST', '/servers', { server: { name: 'trust-vm', imageRef: seedImageId('cirros-0.5.2-x86_64-disk'), flavorRef: '1', networks: [{ uuid: PUBLIC_NETWORK_ID }], key_name: 'by-trust' } });
    expect(created.status).toBe(202);
    const server = (await nova('GET', `/servers/${created.body.server.id}`, undefined, trustor.token)).body.server;
    expect(server).toMatchObject({ tenant_id: trustor.projectId, user_id: trustor.userId, key_name: 'by-trust' });
    await nova('DELETE', `/servers/${server.id}`);
    await nova('DELETE', '/os-keypairs/by-trust', undefined, trustor.token);
    await http('DELETE', `${cloud.keystoneUrl}/OS-TRUST/trusts/${trust.body.trust.id}`, undefined, { 'X-Auth-Token': trustor.token });
  });

  it('scopes Nova to the caller project; all_tenants needs the admin role', async () => {
    const member = new CloudClient(sim, await ensureMember(cloud));
    const adminClient = await CloudClient.connect(sim);
    const mine = await adminClient.call('compute', 'POST', '/servers', { server: { name: 'admins-vm', imageRef: seedImageId('cirros-0.5.2-x86_64-disk'), flavorRef: '1', networks: 'none' } }, { 'X-OpenStack-Nova-API-Version': '2.96' });
    expect((await member.call('compute', 'GET', '/servers')).body.servers).toEqual([]);
    expect((await member.call('compute', 'GET', `/servers/${mine.body.server.id}`)).status).toBe(404);
    expect((await member.call('compute', 'GET', '/servers?all_tenants=1')).status).toBe(403);
    expect((await member.call('volume', 'GET', '/volumes')).status).toBe(200);
    expect((await http('GET', `${sim.url}/volume/v3/${adminClient.session.projectId}/volumes`, undefined, { 'X-Auth-Token': member.session.token })).status).toBe(403);
    await adminClient.call('compute', 'DELETE', `/servers/${mine.body.server.id}`);
  });

  it('the /sim admin API answers the cloud\'s admin only', async () => {
    const member = await ensureMember(cloud);
    const fault = { target: 'server', operation: 'create', mode: 'fail', match: 'sim-auth-probe' };
    expect((await http('GET', `${sim.url}/sim/servers`)).status).toBe(401);
    expect((await http('POST', `${sim.url}/sim/faults`, fault, { 'X-Auth-Token': 'not-a-token' })).status).toBe(401);
    expect((await http('POST', `${sim.url}/sim/faults`, fault, { 'X-Auth-Token': member.token })).status).toBe(403);
    expect((await admin(sim, 'GET', '/faults')).body.faults.filter((f: { match?: string }) => f.match === 'sim-auth-probe')).toEqual([]);
    expect((await admin(sim, 'GET', '/servers')).status).toBe(200);
  });

  it('is a 503 when Keystone cannot be reached', async () => {
    const session = await login(cloud);
    const lonely = await startTestSim({ auth: { authUrl: `http://127.0.0.1:${await freePort()}/v3`, username: 'x', password: 'y', projectName: 'service' } });
    try {
      const res = await http('GET', `${lonely.url}/compute/v2.1/flavors`, undefined, { 'X-Auth-Token': session.token });
      expect(res).toMatchObject({ status: 503, body: { serviceUnavailable: { code: 503 } } });
      expect((await http('GET', `${lonely.url}/healthz`)).status).toBe(200);
    } finally {
      await lonely.close();
    }
  });
});
