/** The reference EM's HTTP Basic and OAuth 2.0 client credentials authentication (fetch). */
import { type Em, startEm } from '../../em/server';

const V = { version: '1.0.0' };
const JSON_V = { ...V, 'content-type': 'application/json' };
const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
const js = (r: Response): Promise<any> => r.json();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const coordReq = {
  vnfInstanceId: 'vnf-1',
  vnfLcmOpOccId: 'op-1',
  lcmOperationType: 'CHANGE_VNFPKG',
  coordinationActionName: 'prv.tacker_organization.coordination_test',
  _links: { vnfLcmOpOcc: { href: 'http://127.0.0.1:9890/vnflcm/v2/vnf_lcm_op_occs/op-1' }, vnfInstance: { href: 'http://127.0.0.1:9890/vnflcm/v2/vnf_instances/vnf-1' } },
};

const postCoord = (em: Em, headers: Record<string, string> = {}) =>
  fetch(`${em.url}/lcmcoord/v1/coordinations`, { method: 'POST', headers: { ...JSON_V, ...headers }, body: JSON.stringify(coordReq) });

function tokenRequest(em: Em, o: { auth?: string; form?: Record<string, string> } = {}) {
  return fetch(em.tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(o.auth ? { authorization: o.auth } : {}) },
    body: new URLSearchParams(o.form ?? { grant_type: 'client_credentials' }).toString(),
  });
}

describe('reference EM: BASIC', () => {
  let em: Em;
  beforeAll(async () => {
    em = await startEm({ auth: { basic: { userName: 'tacker', password: 's3cret-pw' } } });
  });
  afterAll(() => em.close());

  it('requires HTTP Basic on every coordination endpoint', async () => {
    let r = await postCoord(em);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Basic realm="em"');
    expect(r.headers.get('version')).toBe('1.0.0');
    expect(await js(r)).toMatchObject({ status: 401, detail: 'Authorization required' });
    expect((await postCoord(em, { authorization: basic('tacker', 'wrong') })).status).toBe(401);
    expect((await postCoord(em, { authorization: basic('other', 's3cret-pw') })).status).toBe(401);
    expect((await postCoord(em, { authorization: 'Bearer abc' })).status).toBe(401);

    r = await postCoord(em, { authorization: basic('tacker', 's3cret-pw') });
    expect(r.status).toBe(201);
    const id = (await js(r)).id as string;
    expect((await fetch(`${em.url}/lcmcoord/v1/coordinations/${id}`, { headers: V })).status).toBe(401);
    expect((await fetch(`${em.url}/lcmcoord/v1/coordinations/${id}`, { headers: { ...V, authorization: basic('tacker', 's3cret-pw') } })).status).toBe(200);
    expect((await fetch(`${em.url}/lcmcoord/v1/coordinations/${id}/cancel`, { method: 'POST', headers: V })).status).toBe(401);
    // the admin API stays open
    expect((await fetch(`${em.url}/em/coordinations`)).status).toBe(200);
  });

  it('records the authorization scheme only, never the credentials', async () => {
    const reqs = em.requests();
    expect(reqs.filter((x) => x.authorization === 'Basic').length).toBeGreaterThanOrEqual(3);
    expect(reqs.find((x) => x.status === 401 && x.authorization === undefined)).toBeTruthy();
    const dump = JSON.stringify([reqs, em.coordinations()]);
    expect(dump).not.toContain('s3cret-pw');
    expect(dump).not.toContain(Buffer.from('tacker:s3cret-pw').toString('base64'));
  });
});

describe('reference EM: OAUTH2_CLIENT_CREDENTIALS', () => {
  let em: Em;
  beforeAll(async () => {
    em = await startEm({ auth: { oauth2: { clients: [{ clientId: 'vnfm', clientSecret: 'client-secret-1' }, { clientId: 'cert-only' }, { clientId: 'odd id', clientSecret: 'p@ss w:rd&1%' }], tokenTtlSec: 1 } } });
  });
  afterAll(() => em.close());

  it('issues a Bearer token to a client authenticated by HTTP Basic, accepts it, and refuses it once expired', async () => {
    expect(em.tokenEndpoint).toBe(`${em.url}/token`);
    const t = await tokenRequest(em, { auth: basic('vnfm', 'client-secret-1') });
    expect(t.status).toBe(200);
    expect(t.headers.get('cache-control')).toBe('no-store');
    const tok = await js(t);
    expect(tok).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 1 });

    const bearer = { authorization: `Bearer ${tok.access_token}` };
    const r = await postCoord(em, bearer);
    expect(r.status).toBe(201);
    const id = (await js(r)).id as string;
    expect((await fetch(`${em.url}/lcmcoord/v1/coordinations/${id}`, { headers: { ...V, ...bearer } })).status).toBe(200);

    await sleep(1100);
    const expired = await postCoord(em, bearer);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toBe('Bearer realm="em", error="invalid_token", error_description="access token expired"');
    expect((await js(expired)).detail).toMatch(/expired/);

    const unknown = await postCoord(em, { authorization: 'Bearer not-a-token' });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    const none = await postCoord(em);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="em"');
    // Basic credentials of the client are for the token endpoint only
    expect((await postCoord(em, { authorization: basic('vnfm', 'client-secret-1') })).status).toBe(401);

    const dump = JSON.stringify(em.requests());
    expect(dump).not.toContain(tok.access_token);
    expect(dump).not.toContain('client-secret-1');
    expect(em.requests().filter((x) => x.path === '/token').map((x) => x.authorization)).toContain('Basic');
  });

  it('refuses bad client credentials and grant types (RFC 6749 errors)', async () => {
    let r = await tokenRequest(em, { auth: basic('vnfm', 'wrong') });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Basic realm="em"');
    expect(await js(r)).toMatchObject({ error: 'invalid_client' });
    r = await tokenRequest(em, { auth: basic('cert-only', '') });
    expect(r.status).toBe(401);
    r = await tokenRequest(em);
    expect(r.status).toBe(401);
    expect((await js(r)).error).toBe('invalid_client');
    r = await tokenRequest(em, { auth: basic('vnfm', 'client-secret-1'), form: { grant_type: 'password' } });
    expect(r.status).toBe(400);
    expect((await js(r)).error).toBe('unsupported_grant_type');
    r = await tokenRequest(em, { auth: basic('vnfm', 'client-secret-1'), form: {} });
    expect(r.status).toBe(400);
    expect((await js(r)).error).toBe('invalid_request');
    r = await tokenRequest(em, { form: { grant_type: 'client_credentials', client_id: 'vnfm', client_secret: 'client-secret-1' } });
    expect(r.status).toBe(400);
    expect((await js(r)).error_description).toMatch(/HTTP Basic/);
    // form-urlencoded Basic credentials (RFC 6749 2.3.1) are accepted too
    expect((await tokenRequest(em, { auth: basic(encodeURIComponent('odd id'), encodeURIComponent('p@ss w:rd&1%')) })).status).toBe(200);
    expect((await tokenRequest(em, { auth: basic('odd id', 'p@ss w:rd&1%') })).status).toBe(200);
  });
});

describe('reference EM: BASIC and OAuth 2.0 together', () => {
  let em: Em;
  beforeAll(async () => {
    em = await startEm({ auth: { basic: { userName: 'u', password: 'p' }, oauth2: { clients: [{ clientId: 'c', clientSecret: 's' }] } } });
  });
  afterAll(() => em.close());

  it('accepts either and challenges with both', async () => {
    const none = await postCoord(em);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Basic realm="em", Bearer realm="em"');
    expect((await postCoord(em, { authorization: basic('u', 'p') })).status).toBe(201);
    const tok = await js(await tokenRequest(em, { auth: basic('c', 's') }));
    expect(tok.expires_in).toBe(3600);
    expect((await postCoord(em, { authorization: `Bearer ${tok.access_token}` })).status).toBe(201);
  });
});
