/** Keystone v3 password auth, token expiry and the Heat token check. */
import type { VimSim } from '../vimsim/server';
import { admin, HeatTestClient, http, passwordAuth, startTestSim } from './vimsim-helpers';

describe('vimsim keystone', () => {
  let sim: VimSim;

  beforeAll(async () => {
    sim = await startTestSim({ users: [{ name: 'admin', password: 'devstack', project: 'admin' }, { name: 'bob', password: 'pw', project: 'other', domain: 'Corp' }] });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('serves the version document and a health check', async () => {
    expect(sim.keystoneUrl).toBe(`${sim.url}/identity/v3`);
    const version = await http('GET', sim.keystoneUrl);
    expect(version.status).toBe(200);
    expect(version.body.version.id).toMatch(/^v3/);
    expect(version.body.version.links[0].href).toBe(`${sim.keystoneUrl}/`);
    expect((await http('GET', `${sim.url}/healthz`)).status).toBe(200);
  });

  it('issues a project-scoped token with the Heat endpoint in the catalog', async () => {
    const res = await http('POST', `${sim.keystoneUrl}/auth/tokens`, passwordAuth());
    expect(res.status).toBe(201);
    expect(res.headers.get('x-subject-token')).toBeTruthy();
    const { token } = res.body;
    expect(token.methods).toEqual(['password']);
    expect(token.user).toMatchObject({ name: 'admin', domain: { id: 'default', name: 'Default' } });
    expect(token.project.name).toBe('admin');
    expect(token.project.id).toMatch(/^[0-9a-f]{32}$/);
    expect(Date.parse(token.expires_at) - Date.parse(token.issued_at)).toBe(3600 * 1000);
    const heat = token.catalog.find((s: any) => s.type === 'orchestration');
    expect(heat.name).toBe('heat');
    expect(heat.endpoints.map((e: any) => e.interface).sort()).toEqual(['admin', 'internal', 'public']);
    for (const e of heat.endpoints) {
      expect(e).toMatchObject({ region: 'RegionOne', region_id: 'RegionOne', url: `${sim.url}/heat/v1/${token.project.id}` });
    }
  });

  it('accepts ids for user, domain and project', async () => {
    const first = await http('POST', `${sim.keystoneUrl}/auth/tokens`, passwordAuth());
    const { user, project } = first.body.token;
    const byId = await http('POST', `${sim.keystoneUrl}/auth/tokens`, {
      auth: { identity: { methods: ['password'], password: { user: { id: user.id, password: 'devstack' } } }, scope: { project: { id: project.id } } },
    });
    expect(byId.status).toBe(201);
    const byDomainId = await http('POST', `${sim.keystoneUrl}/auth/tokens`, {
      auth: {
        identity: { methods: ['password'], password: { user: { name: 'admin', password: 'devstack', domain: { id: 'default' } } } },
        scope: { project: { name: 'admin', domain: { id: 'default' } } },
      },
    });
    expect(byDomainId.status).toBe(201);
    const otherDomain = await http('POST', `${sim.keystoneUrl}/auth/tokens`, {
      auth: {
        identity: { methods: ['password'], password: { user: { name: 'bob', password: 'pw', domain: { name: 'Corp' } } } },
        scope: { project: { name: 'other', domain: { name: 'Corp' } } },
      },
    });
    expect(otherDomain.status).toBe(201);
    expect(otherDomain.body.token.project.name).toBe('other');
  });

  it.each([
    ['wrong password', passwordAuth('admin', 'nope')],
    ['unknown user', passwordAuth('mallory', 'devstack')],
    ['project the user has no role on', passwordAuth('admin', 'devstack', 'other')],
  ])('answers 401 in Keystone shape for %s', async (_label, body) => {
    const res = await http('POST', `${sim.keystoneUrl}/auth/tokens`, body);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 401, title: 'Unauthorized', message: expect.any(String) } });
    expect(res.headers.get('x-subject-token')).toBeNull();
  });

  it('answers 400 to a malformed auth request', async () => {
    const res = await http('POST', `${sim.keystoneUrl}/auth/tokens`, { auth: {} });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(400);
  });

  it('rejects Heat calls without a valid token, and after tokens expire', async () => {
    const heat = await HeatTestClient.connect(sim);
    expect((await heat.call('GET', 'stacks')).status).toBe(200);

    const noToken = await http('GET', `${heat.heatUrl}/stacks`);
    expect(noToken.status).toBe(401);
    expect(noToken.body.error.message).toMatch(/authentication/);

    const bogus = await http('GET', `${heat.heatUrl}/stacks`, undefined, { 'X-Auth-Token': 'gAAAAAbogus' });
    expect(bogus.status).toBe(401);

    const expired = await admin(sim, 'POST', '/tokens/expire');
    expect(expired.body.expired).toBeGreaterThan(0);
    const after = await heat.call('GET', 'stacks');
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ code: 401, title: 'Unauthorized', error: { type: 'Unauthorized' } });

    // Re-authentication gives a working token again.
    await heat.authenticate();
    expect((await heat.call('GET', 'stacks')).status).toBe(200);
  });

  it('expires tokens after tokenTtlSec', async () => {
    const shortLived = await startTestSim({ tokenTtlSec: 1 });
    try {
      const heat = await HeatTestClient.connect(shortLived);
      expect((await heat.call('GET', 'stacks')).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await heat.call('GET', 'stacks')).status).toBe(401);
    } finally {
      await shortLived.close();
    }
  });

  it('refuses a token scoped to another project', async () => {
    const heat = await HeatTestClient.connect(sim);
    const otherProjectUrl = heat.heatUrl.replace(/\/[0-9a-f]{32}$/, '/0123456789abcdef0123456789abcdef');
    const res = await http('GET', `${otherProjectUrl}/stacks`, undefined, { 'X-Auth-Token': heat.token });
    expect(res.status).toBe(403);
  });
});
