/**
 * Coordination API client, the authentication part: OAuth 2.0 client
 * credentials (token cache, expiry, one re-fetch on 401, never an
 * unauthenticated call), OAUTH2_CLIENT_CERT over mutual TLS (thumbprint
 * checked before any connection), the custom CA, the choice among several
 * authTypes, and no secret in any error message. Certificates are generated
 * by the test (test/support/tls.ts); all servers are on 127.0.0.1.
 */
import { rejection } from '../support/coord';
import { createHash, X509Certificate } from 'node:crypto';
import {
  cancelCoordination, certificateThumbprint, clearTokenCache, CoordinationError, getCoordination, postCoordination,
  type CoordTarget,
} from '../../coord/client';
import type { CoordAuthentication, LcmCoordRequest } from '../../model/coordination';
import { createTestCa, startTestServer, type Issued, type Seen, type TestCa, type TestServer } from '../support/tls';

const request: LcmCoordRequest = {
  vnfInstanceId: 'vnf-1', vnfLcmOpOccId: 'op-1', lcmOperationType: 'CHANGE_VNFPKG',
  coordinationActionName: 'prv.tacker_organization.coordination_test',
  _links: { vnfLcmOpOcc: { href: 'http://127.0.0.1:9890/vnflcm/v2/vnf_lcm_op_occs/op-1' }, vnfInstance: { href: 'http://127.0.0.1:9890/vnflcm/v2/vnf_instances/vnf-1' } },
};
const coord = (id: string) => ({
  id, coordinationResult: 'CONTINUE', vnfInstanceId: 'vnf-1', vnfLcmOpOccId: 'op-1',
  lcmOperationType: 'CHANGE_VNFPKG', coordinationActionName: request.coordinationActionName,
});

const CLIENT_SECRET = 'cl1ent:s3cret&pw=Zq';
const BASIC_PASSWORD = 'basic-pa55word-Xy';


/** A token endpoint issuing tok-<prefix><n>, and the set of tokens an API accepts. */
function tokenIssuer(prefix: string, expiresIn: number | undefined = 3600) {
  const issuer = { issued: [] as string[], valid: new Set<string>(), expiresIn };
  const handler = (_r: Seen) => {
    const token = `tok-${prefix}${issuer.issued.length + 1}`;
    issuer.issued.push(token);
    issuer.valid.add(token);
    return { status: 200, body: { access_token: token, token_type: 'Bearer', ...(issuer.expiresIn ? { expires_in: issuer.expiresIn } : {}) } };
  };
  return { issuer, handler };
}

/** The coordination API: 201 for a valid Bearer token, else 401. */
function apiHandler(valid: () => Set<string>) {
  return (r: Seen) => {
    const m = /^Bearer (.+)$/.exec(String(r.headers.authorization ?? ''));
    if (!m || !valid().has(m[1])) return { status: 401, body: { status: 401, detail: `token rejected: ${r.headers.authorization ?? 'none'}` } };
    if (r.method === 'GET') return { status: 200, body: coord('c1') };
    if (r.url.endsWith('/cancel')) return { status: 202 };
    return { status: 201, body: coord('c1') };
  };
}

let ca: TestCa;
let otherCa: TestCa;
let client1: Issued;
let client2: Issued;
let api: TestServer; // http
let tokenSrv: TestServer; // http
let tlsApi: TestServer; // https, asks for a client certificate (verified against ca)
let tlsToken: TestServer; // https, requires a client certificate
let tlsTokenNoMtls: TestServer; // https, no client certificate

beforeAll(async () => {
  ca = createTestCa('coord test CA');
  otherCa = createTestCa('some other CA');
  client1 = ca.issueClient('vnfm-1');
  client2 = ca.issueClient('vnfm-2');
  const serverCert = ca.issueServer();
  [api, tokenSrv, tlsApi, tlsToken, tlsTokenNoMtls] = await Promise.all([
    startTestServer(),
    startTestServer(),
    startTestServer({ tls: { ...serverCert, clientCa: ca.cert } }),
    startTestServer({ tls: { ...serverCert, clientCa: ca.cert, requireClientCert: true } }),
    startTestServer({ tls: serverCert }),
  ]);
});
afterAll(async () => {
  await Promise.all([api, tokenSrv, tlsApi, tlsToken, tlsTokenNoMtls].map((s) => s?.close()));
});
beforeEach(() => {
  clearTokenCache();
  for (const s of [api, tokenSrv, tlsApi, tlsToken, tlsTokenNoMtls]) s.seen.length = 0;
  jest.restoreAllMocks();
});

const credentials = (tokenEndpoint = `${tokenSrv.url}/oauth/token`, clientPassword = CLIENT_SECRET): CoordAuthentication => ({
  authType: ['OAUTH2_CLIENT_CREDENTIALS'],
  paramsOauth2ClientCredentials: { clientId: 'vnfm client', clientPassword, tokenEndpoint },
});
const certAuth = (cert: string, clientId = 'vnfm-cert'): CoordAuthentication => ({
  authType: ['OAUTH2_CLIENT_CERT'],
  paramsOauth2ClientCert: { clientId, certificateRef: { type: 'x5t#S256', value: certificateThumbprint(cert) }, tokenEndpoint: `${tlsToken.url}/token` },
});

describe('OAUTH2_CLIENT_CREDENTIALS', () => {
  test('the token is fetched once (client id/secret by HTTP Basic) and reused across calls', async () => {
    const { issuer, handler } = tokenIssuer('a');
    tokenSrv.handler = handler;
    api.handler = apiHandler(() => issuer.valid);
    const t: CoordTarget = { endpoint: api.url, authentication: credentials() };
    expect(await postCoordination(t, request)).toMatchObject({ kind: 'result' });
    expect(await getCoordination(t, `${api.url}/lcmcoord/v1/coordinations/c1`)).toMatchObject({ kind: 'result' });
    await cancelCoordination(t, 'c1');

    expect(tokenSrv.seen).toHaveLength(1);
    const tr = tokenSrv.seen[0];
    expect(tr).toMatchObject({ method: 'POST', url: '/oauth/token', body: 'grant_type=client_credentials' });
    expect(tr.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const [id, secret] = Buffer.from(String(tr.headers.authorization).replace(/^Basic /, ''), 'base64').toString().split(':');
    // RFC 6749 §2.3.1: form-urlencoded before Basic
    expect([decodeURIComponent(id.replace(/\+/g, ' ')), decodeURIComponent(secret)]).toEqual(['vnfm client', CLIENT_SECRET]);
    expect(api.seen.map((r) => r.headers.authorization)).toEqual(['Bearer tok-a1', 'Bearer tok-a1', 'Bearer tok-a1']);
  });

  test('concurrent calls share one token request', async () => {
    const { issuer, handler } = tokenIssuer('c');
    tokenSrv.handler = async (r) => { await new Promise((res) => setTimeout(res, 50)); return handler(r); };
    api.handler = apiHandler(() => issuer.valid);
    const t: CoordTarget = { endpoint: api.url, authentication: credentials() };
    await Promise.all([1, 2, 3].map(() => postCoordination(t, request)));
    expect(tokenSrv.seen).toHaveLength(1);
    expect(api.seen).toHaveLength(3);
  });

  test('an expired token is fetched again (expires_in minus a margin)', async () => {
    const { issuer, handler } = tokenIssuer('e', 60);
    tokenSrv.handler = handler;
    api.handler = apiHandler(() => issuer.valid);
    const t: CoordTarget = { endpoint: api.url, authentication: credentials() };
    const start = Date.now();
    await postCoordination(t, request);
    jest.spyOn(Date, 'now').mockReturnValue(start + 45_000);
    await postCoordination(t, request);
    expect(tokenSrv.seen).toHaveLength(1);
    jest.spyOn(Date, 'now').mockReturnValue(start + 58_000); // inside the margin before expires_in
    await postCoordination(t, request);
    expect(tokenSrv.seen).toHaveLength(2);
    expect(api.seen.map((r) => r.headers.authorization)).toEqual(['Bearer tok-e1', 'Bearer tok-e1', 'Bearer tok-e2']);
  });

  test('another secret for the same client id never gets the cached token', async () => {
    const { issuer, handler } = tokenIssuer('s');
    tokenSrv.handler = handler;
    api.handler = apiHandler(() => issuer.valid);
    await postCoordination({ endpoint: api.url, authentication: credentials() }, request);
    await postCoordination({ endpoint: api.url, authentication: credentials(undefined, 'wrong-secret-123') }, request);
    expect(tokenSrv.seen).toHaveLength(2);
  });

  test('a 401 drops the token, fetches a new one once and repeats the call once', async () => {
    const { issuer, handler } = tokenIssuer('r');
    tokenSrv.handler = handler;
    api.handler = apiHandler(() => issuer.valid);
    const t: CoordTarget = { endpoint: api.url, authentication: credentials() };
    await postCoordination(t, request);
    issuer.valid.delete('tok-r1'); // revoked by the server
    expect(await postCoordination(t, request)).toMatchObject({ kind: 'result' });
    expect(tokenSrv.seen).toHaveLength(2);
    expect(api.seen.map((r) => r.headers.authorization)).toEqual(['Bearer tok-r1', 'Bearer tok-r1', 'Bearer tok-r2']);
    await postCoordination(t, request); // the new token is cached
    expect(tokenSrv.seen).toHaveLength(2);
  });

  test('a 401 again after the re-fetch: not retryable, exactly one repeat', async () => {
    const { handler } = tokenIssuer('n');
    tokenSrv.handler = handler;
    api.handler = apiHandler(() => new Set());
    const e = await rejection(postCoordination({ endpoint: api.url, authentication: credentials() }, request));
    expect(e).toMatchObject({ status: 401, retryable: false, stage: 'api' });
    expect(tokenSrv.seen).toHaveLength(2);
    expect(api.seen).toHaveLength(2);
    expect(e.message).toContain('token rejected');
    expect(e.message).not.toContain('tok-n'); // the server echoed the token: masked
  });

  test('a failing token endpoint is an error, and the API server sees no call at all', async () => {
    const t: CoordTarget = { endpoint: api.url, authentication: credentials() };
    api.handler = () => ({ status: 201, body: coord('never') });
    const connectionsBefore = api.connections;

    tokenSrv.handler = () => ({ status: 401, body: { error: 'invalid_client', error_description: `client authentication failed for ${CLIENT_SECRET}` } });
    const e1 = await rejection(postCoordination(t, request));
    expect(e1).toMatchObject({ status: 401, retryable: false, stage: 'token' });
    expect(e1.message).toMatch(/token request to http:\/\/127\.0\.0\.1:\d+\/oauth\/token .*invalid_client: client authentication failed/);
    expect(e1.message).not.toContain(CLIENT_SECRET);

    tokenSrv.handler = () => ({ status: 500, body: 'oops' });
    expect(await rejection(getCoordination(t, `${api.url}/lcmcoord/v1/coordinations/x`))).toMatchObject({ status: 500, retryable: true, stage: 'token' });

    tokenSrv.handler = () => ({ status: 200, body: { token_type: 'Bearer' } });
    expect((await rejection(cancelCoordination(t, 'x'))).message).toMatch(/no access_token/);

    const dead = await startTestServer();
    await dead.close();
    const e4 = await rejection(postCoordination({ endpoint: api.url, authentication: credentials(`${dead.url}/token`) }, request));
    expect(e4).toMatchObject({ retryable: true, stage: 'token', code: 'ECONNREFUSED' });

    expect(api.seen).toHaveLength(0);
    expect(api.connections).toBe(connectionsBefore);
  });

  test('missing parameters: a configuration error before any call', async () => {
    const e = await rejection(postCoordination({
      endpoint: api.url,
      authentication: { authType: ['OAUTH2_CLIENT_CREDENTIALS'], paramsOauth2ClientCredentials: { clientId: 'x', clientPassword: 'y' } },
    }, request));
    expect(e).toMatchObject({ retryable: false, stage: 'config' });
    expect(tokenSrv.seen).toHaveLength(0);
    expect(api.seen).toHaveLength(0);
  });

  test('https token endpoint and API with the custom CA', async () => {
    const { issuer, handler } = tokenIssuer('h');
    tlsTokenNoMtls.handler = handler;
    tlsApi.handler = apiHandler(() => issuer.valid);
    const t: CoordTarget = { endpoint: tlsApi.url, ca: ca.cert, authentication: credentials(`${tlsTokenNoMtls.url}/token`) };
    expect(await postCoordination(t, request)).toMatchObject({ kind: 'result' });
    expect(tlsTokenNoMtls.seen[0].headers.authorization).toMatch(/^Basic /);
    expect(tlsApi.seen[0].clientAuthorized).toBe(false); // no client certificate outside OAUTH2_CLIENT_CERT

    clearTokenCache();
    const e = await rejection(postCoordination({ ...t, ca: undefined }, request));
    expect(e).toMatchObject({ stage: 'token', retryable: false });
    expect(tlsApi.seen).toHaveLength(1); // only the first, successful call
  });
});

describe('OAUTH2_CLIENT_CERT', () => {
  test('certificateThumbprint is x5t#S256: base64url, unpadded, SHA-256 of the DER', () => {
    const der = new X509Certificate(client1.cert).raw;
    const fromFingerprint = Buffer.from(new X509Certificate(client1.cert).fingerprint256.replace(/:/g, ''), 'hex').toString('base64url');
    expect(certificateThumbprint(client1.cert)).toBe(createHash('sha256').update(der).digest('base64url'));
    expect(certificateThumbprint(client1.cert)).toBe(fromFingerprint);
    expect(certificateThumbprint(client1.cert)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(() => certificateThumbprint('not a certificate')).toThrow(CoordinationError);
  });

  test('token request and API calls over mutual TLS with the right certificate', async () => {
    const { issuer, handler } = tokenIssuer('m');
    tlsToken.handler = handler;
    tlsApi.handler = (r) => (r.clientAuthorized ? apiHandler(() => issuer.valid)(r) : { status: 403, body: { status: 403, detail: 'no client certificate' } });
    const t: CoordTarget = { endpoint: tlsApi.url, ca: ca.cert, clientCert: client1, authentication: certAuth(client1.cert) };
    expect(await postCoordination(t, request)).toMatchObject({ kind: 'result' });
    expect(await getCoordination(t, `${tlsApi.url}/lcmcoord/v1/coordinations/c1`)).toMatchObject({ kind: 'result' });

    expect(tlsToken.seen).toHaveLength(1);
    const tr = tlsToken.seen[0];
    expect(tr.body).toBe('grant_type=client_credentials&client_id=vnfm-cert');
    expect(tr.headers.authorization).toBeUndefined(); // no secret
    expect(tr).toMatchObject({ clientAuthorized: true, clientCn: 'vnfm-1' });
    expect(tlsApi.seen.map((r) => [r.headers.authorization, r.clientAuthorized, r.clientCn]))
      .toEqual([['Bearer tok-m1', true, 'vnfm-1'], ['Bearer tok-m1', true, 'vnfm-1']]);
  });

  test('a 401 re-fetches the token over mutual TLS once', async () => {
    const { issuer, handler } = tokenIssuer('q');
    tlsToken.handler = handler;
    tlsApi.handler = apiHandler(() => issuer.valid);
    const t: CoordTarget = { endpoint: tlsApi.url, ca: ca.cert, clientCert: client1, authentication: certAuth(client1.cert) };
    await postCoordination(t, request);
    issuer.valid.clear();
    issuer.valid.add('tok-q2');
    expect(await postCoordination(t, request)).toMatchObject({ kind: 'result' });
    expect(tlsToken.seen.map((r) => r.clientCn)).toEqual(['vnfm-1', 'vnfm-1']);
  });

  test('a wrong thumbprint is refused before any connection', async () => {
    const before = [tlsApi.connections, tlsToken.connections];
    const t: CoordTarget = { endpoint: tlsApi.url, ca: ca.cert, clientCert: client1, authentication: certAuth(client2.cert) };
    const e = await rejection(postCoordination(t, request));
    expect(e).toMatchObject({ retryable: false, stage: 'config' });
    expect(e.message).toMatch(/certificateRef\.value .* does not match the client certificate's x5t#S256 thumbprint/);
    expect(e.message).not.toContain(certificateThumbprint(client1.cert)); // the right one is not told
    await rejection(getCoordination(t, `${tlsApi.url}/lcmcoord/v1/coordinations/c1`));
    await rejection(cancelCoordination(t, 'c1'));
    expect([tlsApi.connections, tlsToken.connections]).toEqual(before);
    expect(tlsApi.seen).toHaveLength(0);
    expect(tlsToken.seen).toHaveLength(0);
  });

  test('a key that does not belong to the certificate, or no certificate at all, is refused before any connection', async () => {
    const before = [tlsApi.connections, tlsToken.connections];
    const e1 = await rejection(postCoordination({
      endpoint: tlsApi.url, ca: ca.cert, clientCert: { cert: client1.cert, key: client2.key }, authentication: certAuth(client1.cert),
    }, request));
    expect(e1.message).toMatch(/client key does not belong to the client certificate/);
    expect(e1.message).not.toContain('PRIVATE KEY');
    const e2 = await rejection(postCoordination({ endpoint: tlsApi.url, ca: ca.cert, authentication: certAuth(client1.cert) }, request));
    expect(e2.message).toMatch(/needs a client certificate/);
    const e3 = await rejection(postCoordination({ endpoint: api.url, clientCert: client1, authentication: certAuth(client1.cert) }, request));
    expect(e3.message).toMatch(/must be https/);
    expect([tlsApi.connections, tlsToken.connections]).toEqual(before);
  });

  test('several authTypes: CLIENT_CERT first, then CLIENT_CREDENTIALS, then BASIC', async () => {
    const cert = tokenIssuer('x');
    const cred = tokenIssuer('y');
    tlsToken.handler = cert.handler;
    tokenSrv.handler = cred.handler;
    tlsApi.handler = apiHandler(() => new Set([...cert.issuer.valid, ...cred.issuer.valid]));
    const all: CoordAuthentication = {
      authType: ['BASIC', 'OAUTH2_CLIENT_CREDENTIALS', 'OAUTH2_CLIENT_CERT'],
      paramsBasic: { userName: 'u', password: BASIC_PASSWORD },
      paramsOauth2ClientCredentials: credentials().paramsOauth2ClientCredentials,
      paramsOauth2ClientCert: certAuth(client1.cert).paramsOauth2ClientCert,
    };
    await postCoordination({ endpoint: tlsApi.url, ca: ca.cert, clientCert: client1, authentication: all }, request);
    expect(tlsToken.seen).toHaveLength(1);
    expect(tokenSrv.seen).toHaveLength(0);
    expect(tlsApi.seen[0]).toMatchObject({ clientAuthorized: true, headers: expect.objectContaining({ authorization: 'Bearer tok-x1' }) });

    await postCoordination({ endpoint: tlsApi.url, ca: ca.cert, authentication: { ...all, authType: ['BASIC', 'OAUTH2_CLIENT_CREDENTIALS'] } }, request);
    expect(tokenSrv.seen).toHaveLength(1);
    expect(tlsApi.seen[1].headers.authorization).toBe('Bearer tok-y1');

    tlsApi.handler = () => ({ status: 201, body: coord('b') });
    await postCoordination({ endpoint: tlsApi.url, ca: ca.cert, authentication: { ...all, authType: ['BASIC'] } }, request);
    expect(tlsApi.seen[2].headers.authorization).toMatch(/^Basic /);

    // a listed method without its parameters is skipped
    await postCoordination({ endpoint: tlsApi.url, ca: ca.cert, authentication: { authType: ['OAUTH2_CLIENT_CERT', 'BASIC'], paramsBasic: all.paramsBasic } }, request);
    expect(tlsApi.seen[3].headers.authorization).toMatch(/^Basic /);
  });
});

describe('custom CA', () => {
  test('https needs the server CA: without it (or with another CA) the call fails clearly, not retryable', async () => {
    tlsApi.handler = () => ({ status: 201, body: coord('ca') });
    const basic: CoordAuthentication = { authType: ['BASIC'], paramsBasic: { userName: 'u', password: BASIC_PASSWORD } };
    const e1 = await rejection(postCoordination({ endpoint: tlsApi.url, authentication: basic }, request));
    expect(e1).toMatchObject({ retryable: false, stage: 'api' });
    expect(e1.message).toMatch(/not trusted: give the CA of the coordination server/);
    expect(e1.code).toMatch(/SELF_SIGNED|UNABLE_TO/);
    const e2 = await rejection(postCoordination({ endpoint: tlsApi.url, ca: otherCa.cert, authentication: basic }, request));
    expect(e2.message).toMatch(/not trusted by the configured CA/);
    expect(tlsApi.seen).toHaveLength(0);
    expect(await postCoordination({ endpoint: tlsApi.url, ca: ca.cert, authentication: basic }, request)).toMatchObject({ kind: 'result' });
    expect(tlsApi.seen).toHaveLength(1);
  });

  test('a server certificate for another host name is refused, not retryable', async () => {
    const elsewhere = await startTestServer({ tls: ca.issueServer({ ips: ['192.0.2.7'], dns: ['em.example'], cn: 'em.example' }) });
    try {
      elsewhere.handler = () => ({ status: 201, body: coord('x') });
      const e = await rejection(postCoordination({ endpoint: elsewhere.url, ca: ca.cert }, request));
      expect(e).toMatchObject({ retryable: false, code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
      expect(e.message).toMatch(/does not match the host/);
      expect(elsewhere.seen).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  test('an invalid CA PEM is a configuration error', async () => {
    const e = await rejection(postCoordination({ endpoint: tlsApi.url, ca: 'garbage' }, request));
    expect(e).toMatchObject({ retryable: false, stage: 'config' });
  });
});

describe('secrets never appear in errors', () => {
  test('passwords, client secrets, tokens and keys are absent from every message', async () => {
    const errors: CoordinationError[] = [];
    const collect = async (p: Promise<unknown>) => errors.push(await rejection(p));
    const echo = (r: Seen) => ({ status: 400, body: { status: 400, detail: `echo ${r.headers.authorization} ${r.body}` } });

    // API echoes the Authorization header (Basic, Bearer)
    api.handler = echo;
    await collect(postCoordination({ endpoint: api.url, authentication: { authType: ['BASIC'], paramsBasic: { userName: 'u', password: BASIC_PASSWORD } } }, request));
    const { issuer, handler } = tokenIssuer('secret-token-');
    tokenSrv.handler = handler;
    await collect(postCoordination({ endpoint: api.url, authentication: credentials() }, request));
    // token endpoint echoes what it got
    tokenSrv.handler = (r) => ({ status: 400, body: { error: 'invalid_request', error_description: `${r.headers.authorization} ${CLIENT_SECRET}` } });
    clearTokenCache();
    await collect(postCoordination({ endpoint: api.url, authentication: credentials() }, request));
    // unreachable API with credentials in the endpoint URL
    const dead = await startTestServer();
    await dead.close();
    await collect(postCoordination({ endpoint: dead.url.replace('http://', `http://u:${BASIC_PASSWORD}@`), authentication: { authType: ['BASIC'], paramsBasic: { userName: 'u', password: BASIC_PASSWORD } } }, request));
    // client certificate problems
    await collect(postCoordination({ endpoint: tlsApi.url, ca: ca.cert, clientCert: { cert: client1.cert, key: client2.key }, authentication: certAuth(client1.cert) }, request));
    await collect(postCoordination({ endpoint: tlsApi.url, ca: ca.cert, clientCert: { cert: client1.cert, key: 'not a key' }, authentication: certAuth(client1.cert) }, request));

    expect(errors).toHaveLength(6);
    const forbidden = [
      BASIC_PASSWORD, Buffer.from(`u:${BASIC_PASSWORD}`).toString('base64'), CLIENT_SECRET, encodeURIComponent(CLIENT_SECRET),
      ...issuer.issued, client1.key.split('\n')[1], client2.key.split('\n')[1],
    ];
    expect(issuer.issued.length).toBeGreaterThan(0);
    for (const e of errors) {
      const text = `${e.message} ${JSON.stringify(e)} ${String(e.stack)}`;
      for (const s of forbidden) expect(text).not.toContain(s);
    }
  });
});
