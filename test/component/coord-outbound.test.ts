/**
 * The coordination client under the outbound policy and with credentials
 * kept to where they were configured for, against real servers on loopback:
 * the reference EM (em/) and small recording HTTP/HTTPS servers standing for
 * an attacker's host.
 *
 * - SSRF: an endpoint / token endpoint at the metadata address or on a denied
 *   address (literal, or a name resolving there) is refused before connecting;
 * - a 202 Location on another origin never gets the Authorization header;
 * - token theft: a cached Bearer token is never sent to another endpoint;
 * - the operator's mTLS certificate only goes to COORD_CLIENT_CERT_HOSTS;
 * - error bodies only as a short masked excerpt; the response cap is set by
 *   OUTBOUND_MAX_BODY_COORD.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { rejection } from '../support/coord';
import {
  certificateThumbprint, clearTokenCache, getCoordination, operatorCoordTls, postCoordination, type CoordTarget,
} from '../../coord/client';
import type { CoordAuthentication, LcmCoordRequest } from '../../model/coordination';
import { useResolver } from '../../common/outbound';
import { startEm, type Em } from '../../em/server';
import { createTestCa, startTestServer, type Issued, type TestCa, type TestServer } from '../support/tls';

const request: LcmCoordRequest = {
  vnfInstanceId: 'vnf-1', vnfLcmOpOccId: 'op-1', lcmOperationType: 'CHANGE_VNFPKG',
  coordinationActionName: 'prv.tacker_organization.coordination_test',
  _links: { vnfLcmOpOcc: { href: 'http://127.0.0.1:9890/vnflcm/v2/vnf_lcm_op_occs/op-1' }, vnfInstance: { href: 'http://127.0.0.1:9890/vnflcm/v2/vnf_instances/vnf-1' } },
};
const coord = (id: string) => ({
  id, coordinationResult: 'CONTINUE', vnfInstanceId: 'vnf-1', vnfLcmOpOccId: 'op-1',
  lcmOperationType: 'CHANGE_VNFPKG', coordinationActionName: request.coordinationActionName,
});
const BASIC_PASSWORD = 'em-basic-Passw0rd';
const basic: CoordAuthentication = { authType: ['BASIC'], paramsBasic: { userName: 'tacker', password: BASIC_PASSWORD } };

const ENV_KEYS = ['OUTBOUND_ALLOW', 'OUTBOUND_DENY', 'OUTBOUND_MAX_BODY_COORD', 'COORD_CLIENT_CERT_HOSTS', 'COORD_CLIENT_CERT', 'COORD_CLIENT_KEY', 'COORD_CA_FILE'];
const saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));

let ca: TestCa;
let client: Issued;
let em: Em; // plain http, OAuth 2.0 client credentials
let mtlsEm: Em; // https, mutual TLS, tokens bound to the client certificate
let other: TestServer; // http, "another origin": an attacker's logging server
let otherTls: TestServer; // https, asks for a client certificate and records whether one came
let alias: http.Server; // on 127.0.0.77, the internal host an attacker wants called
let aliasConnections = 0;
let aliasPort = 0;

beforeAll(async () => {
  ca = createTestCa('coord outbound CA');
  client = ca.issueClient('orchestrator');
  const server = ca.issueServer();
  em = await startEm({ auth: { oauth2: { clients: [{ clientId: 'orchestrator', clientSecret: 'em-client-secret' }] }, basic: { userName: 'tacker', password: BASIC_PASSWORD } } });
  mtlsEm = await startEm({ auth: { tls: { cert: server.cert, key: server.key, ca: ca.cert, requestClientCert: true }, oauth2: { clients: [{ clientId: 'orchestrator', certificateX5tS256: certificateThumbprint(client.cert) }] } } });
  other = await startTestServer();
  otherTls = await startTestServer({ tls: { ...server, clientCa: ca.cert } });
  alias = http.createServer((_q, r) => r.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(coord('alias'))));
  alias.on('connection', () => { aliasConnections++; });
  await new Promise<void>((r) => alias.listen(0, '127.0.0.77', r));
  aliasPort = (alias.address() as AddressInfo).port;
});
afterAll(async () => {
  await Promise.all([em.close(), mtlsEm.close(), other.close(), otherTls.close()]);
  alias.closeAllConnections();
  await new Promise((r) => alias.close(r));
});
beforeEach(() => {
  clearTokenCache();
  other.seen.length = 0; other.connections = 0;
  otherTls.seen.length = 0; otherTls.connections = 0;
  aliasConnections = 0;
});
afterEach(() => {
  useResolver(undefined);
  for (const k of ENV_KEYS) if (saved[k] === undefined) delete process.env[k]; else process.env[k] = saved[k];
});

describe('SSRF', () => {
  test('an endpoint at the metadata address is refused before connecting', async () => {
    const t0 = Date.now();
    const e = await rejection(postCoordination({ endpoint: 'http://169.254.169.254/latest', timeoutMs: 3000 }, request));
    expect(e).toMatchObject({ retryable: false, stage: 'config' });
    expect(e.message).toMatch(/outbound policy refuses the coordination endpoint http:\/\/169\.254\.169\.254\/.*link-local/);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  test('an endpoint on a denied address: the server there sees no connection', async () => {
    process.env.OUTBOUND_DENY = '127.0.0.77';
    const e = await rejection(postCoordination({ endpoint: `http://127.0.0.77:${aliasPort}` }, request));
    expect(e.message).toMatch(/127\.0\.0\.77 is in OUTBOUND_DENY/);
    expect(aliasConnections).toBe(0);
  });

  test('a host name resolving to a denied address is refused at connect time; allowed, the call reaches the checked address', async () => {
    useResolver(async (h) => (h === 'em.internal.test' ? [{ address: '127.0.0.77', family: 4 }] : []));
    process.env.OUTBOUND_DENY = '127.0.0.0/25';
    const e = await rejection(postCoordination({ endpoint: `http://em.internal.test:${aliasPort}` }, request));
    expect(e).toMatchObject({ retryable: false, stage: 'config' });
    expect(e.message).toMatch(/em\.internal\.test resolves to 127\.0\.0\.77, which is in OUTBOUND_DENY \(127\.0\.0\.0\/25\)/);
    expect(aliasConnections).toBe(0);
    delete process.env.OUTBOUND_DENY;
    expect(await postCoordination({ endpoint: `http://em.internal.test:${aliasPort}` }, request)).toMatchObject({ kind: 'result', coord: { id: 'alias' } });
    expect(aliasConnections).toBe(1);
  });

  test('a token endpoint at the metadata address: refused, the client secret goes nowhere', async () => {
    const e = await rejection(postCoordination({
      endpoint: em.url, timeoutMs: 3000,
      authentication: { authType: ['OAUTH2_CLIENT_CREDENTIALS'], paramsOauth2ClientCredentials: { clientId: 'orchestrator', clientPassword: 'em-client-secret', tokenEndpoint: 'http://169.254.169.254/token' } },
    }, request));
    expect(e).toMatchObject({ retryable: false, stage: 'token' });
    expect(e.message).toMatch(/outbound policy refuses the OAuth 2\.0 token endpoint/);
  });

  test('credentials in the endpoint URL are refused', async () => {
    const e = await rejection(postCoordination({ endpoint: `http://u:${BASIC_PASSWORD}@127.0.0.1:${other.port}` }, request));
    expect(e.message).toMatch(/must not carry credentials/);
    expect(e.message).not.toContain(BASIC_PASSWORD);
    expect(other.connections).toBe(0);
  });
});

describe('202 Location on another origin', () => {
  test('with authentication: refused at once, and the other origin never gets the Authorization header', async () => {
    other.handler = () => ({ status: 200, body: coord('elsewhere') });
    const origin = await startTestServer();
    try {
      origin.handler = () => ({ status: 202, headers: { location: `${other.url}/jobs/1`, 'retry-after': '1' } });
      const t: CoordTarget = { endpoint: origin.url, authentication: basic };
      const e = await rejection(postCoordination(t, request));
      expect(e).toMatchObject({ retryable: false });
      expect(e.message).toMatch(/Location http:\/\/127\.0\.0\.1:\d+\/jobs\/1 is on another origin than the coordination endpoint .* not followed/);
      // a Location recorded earlier (workflow history) is refused the same way
      expect((await rejection(getCoordination(t, `${other.url}/jobs/1`))).message).toMatch(/another origin/);
      expect(other.seen).toHaveLength(0);
      expect(origin.seen[0].headers.authorization).toMatch(/^Basic /);
    } finally {
      await origin.close();
    }
  });

  test('without authentication there is nothing to withhold: it is followed, plainly', async () => {
    other.handler = () => ({ status: 200, body: coord('elsewhere') });
    const origin = await startTestServer();
    try {
      origin.handler = () => ({ status: 202, headers: { location: `${other.url}/jobs/2` } });
      const posted = await postCoordination({ endpoint: origin.url }, request);
      expect(posted).toMatchObject({ kind: 'async', location: `${other.url}/jobs/2` });
      expect(await getCoordination({ endpoint: origin.url }, `${other.url}/jobs/2`)).toMatchObject({ kind: 'result' });
      expect(other.seen[0].headers.authorization).toBeUndefined();
    } finally {
      await origin.close();
    }
  });
});

describe('token theft by endpoint swap', () => {
  test('OAUTH2_CLIENT_CREDENTIALS: the Bearer token cached for the EM is not sent to another endpoint', async () => {
    const auth: CoordAuthentication = {
      authType: ['OAUTH2_CLIENT_CREDENTIALS'],
      paramsOauth2ClientCredentials: { clientId: 'orchestrator', clientPassword: 'em-client-secret', tokenEndpoint: em.tokenEndpoint },
    };
    expect(await postCoordination({ endpoint: em.url, authentication: auth }, request)).toMatchObject({ kind: 'result' });
    const tokenRequests = () => em.requests().filter((r) => r.path === '/token').length;
    const before = tokenRequests();
    other.handler = () => ({ status: 201, body: coord('stolen') });
    await postCoordination({ endpoint: other.url, authentication: auth }, request);
    expect(tokenRequests()).toBe(before + 1); // a token of its own, not the EM's cached one
    // the EM still accepts its own token, and it was never shown to the other server
    const seenByOther = String(other.seen[0].headers.authorization);
    expect(seenByOther).toMatch(/^Bearer /);
    await postCoordination({ endpoint: em.url, authentication: auth }, request);
    expect(tokenRequests()).toBe(before + 1); // the EM's token still cached for the EM
  });

  test('OAUTH2_CLIENT_CERT: the certificate and its token stay with the EM the operator allowed', async () => {
    const auth: CoordAuthentication = {
      authType: ['OAUTH2_CLIENT_CERT'],
      paramsOauth2ClientCert: { clientId: 'orchestrator', certificateRef: { type: 'x5t#S256', value: certificateThumbprint(client.cert) }, tokenEndpoint: mtlsEm.tokenEndpoint },
    };
    const clientCert = { ...client, allowedHosts: [new URL(mtlsEm.url).host] }; // 127.0.0.1:<EM port> only
    expect(await postCoordination({ endpoint: mtlsEm.url, ca: ca.cert, clientCert, authentication: auth }, request)).toMatchObject({ kind: 'result' });

    otherTls.handler = () => ({ status: 201, body: coord('stolen') });
    const e = await rejection(postCoordination({ endpoint: otherTls.url, ca: ca.cert, clientCert, authentication: auth }, request));
    expect(e).toMatchObject({ retryable: false, stage: 'config' });
    expect(e.message).toMatch(/operator's client certificate is not presented to the coordination endpoint https:\/\/127\.0\.0\.1:\d+: it is not in COORD_CLIENT_CERT_HOSTS/);
    expect(otherTls.connections).toBe(0); // no certificate, no token, no connection
  });
});

describe('the operator\'s certificate from the environment (operatorCoordTls)', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coord-outbound-'));
    fs.writeFileSync(path.join(dir, 'client.pem'), client.cert);
    fs.writeFileSync(path.join(dir, 'client-key.pem'), client.key);
    fs.writeFileSync(path.join(dir, 'ca.pem'), ca.cert);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const useFiles = () => {
    process.env.COORD_CLIENT_CERT = path.join(dir, 'client.pem');
    process.env.COORD_CLIENT_KEY = path.join(dir, 'client-key.pem');
    process.env.COORD_CA_FILE = path.join(dir, 'ca.pem');
  };
  const certAuth = (tokenEndpoint: string): CoordAuthentication => ({
    authType: ['OAUTH2_CLIENT_CERT'],
    paramsOauth2ClientCert: { clientId: 'orchestrator', certificateRef: { type: 'x5t#S256', value: certificateThumbprint(client.cert) }, tokenEndpoint },
  });

  test('without COORD_CLIENT_CERT_HOSTS the certificate is used for no host, and the error names the setting', async () => {
    useFiles();
    delete process.env.COORD_CLIENT_CERT_HOSTS;
    const before = mtlsEm.requests().length;
    const e = await rejection(postCoordination({ endpoint: mtlsEm.url, authentication: certAuth(mtlsEm.tokenEndpoint), ...operatorCoordTls() }, request));
    expect(e.message).toMatch(/COORD_CLIENT_CERT_HOSTS is not set, so the certificate is used for no host/);
    expect(mtlsEm.requests().length).toBe(before);
  });

  test('listed, it is presented there; a host outside the list never sees it', async () => {
    useFiles();
    process.env.COORD_CLIENT_CERT_HOSTS = `https://${new URL(mtlsEm.url).host}`;
    expect(await postCoordination({ endpoint: mtlsEm.url, authentication: certAuth(mtlsEm.tokenEndpoint), ...operatorCoordTls() }, request)).toMatchObject({ kind: 'result' });
    expect(mtlsEm.requests().at(-1)).toMatchObject({ authorization: 'Bearer', clientCertificate: certificateThumbprint(client.cert) });

    // the token endpoint outside the list: refused too (the certificate would be presented there)
    const e = await rejection(postCoordination({ endpoint: mtlsEm.url, authentication: certAuth(`${otherTls.url}/token`), ...operatorCoordTls() }, request));
    expect(e.message).toMatch(/not presented to the token endpoint/);
    // another auth type to a host outside the list: no certificate in the handshake
    otherTls.handler = () => ({ status: 201, body: coord('b') });
    await postCoordination({ endpoint: otherTls.url, authentication: basic, ...operatorCoordTls() }, request);
    expect(otherTls.seen).toHaveLength(1);
    expect(otherTls.seen[0].clientAuthorized).toBe(false);
  });

  test('a wrong thumbprint does not tell the right one', async () => {
    useFiles();
    process.env.COORD_CLIENT_CERT_HOSTS = '127.0.0.1';
    const auth = certAuth(mtlsEm.tokenEndpoint);
    auth.paramsOauth2ClientCert!.certificateRef.value = 'AAAAwrongthumbprint';
    const e = await rejection(postCoordination({ endpoint: mtlsEm.url, authentication: auth, ...operatorCoordTls() }, request));
    expect(e.message).toMatch(/certificateRef\.value AAAAwrongthumbprint does not match/);
    expect(e.message).not.toContain(certificateThumbprint(client.cert));
  });
});

describe('what comes back', () => {
  test('a long error body with secrets: a short masked excerpt', async () => {
    other.handler = (r) => ({
      status: 400,
      body: { status: 400, detail: `\u001b[31mrefused ${r.headers.authorization} for tacker/${BASIC_PASSWORD} api_key=K3Y-123456\n${'long '.repeat(2000)}` },
    });
    const e = await rejection(postCoordination({ endpoint: other.url, authentication: basic }, request));
    const detail = e.message.replace(/^POST \S+ -> 400: /, '');
    expect(detail.length).toBeLessThanOrEqual(200);
    expect(detail).toMatch(/^refused \*\*\*\* for tacker\/\*\*\*\* api_key=\*\*\*\* long long/);
    expect(e.message).not.toContain(BASIC_PASSWORD);
    expect(e.message).not.toContain('K3Y-123456');
    expect(e.message).not.toMatch(/[\u0000-\u001f]/);
  });

  test('the response cap comes from OUTBOUND_MAX_BODY_COORD (default 1 MiB) and a 20 MiB answer is aborted', async () => {
    process.env.OUTBOUND_MAX_BODY_COORD = '64KiB';
    other.handler = () => ({ status: 201, body: { ...coord('big'), pad: 'p'.repeat(100 * 1024) } });
    const e = await rejection(postCoordination({ endpoint: other.url }, request));
    expect(e.message).toMatch(/the response is larger than 64 KiB \(OUTBOUND_MAX_BODY_COORD\); aborted/);
    delete process.env.OUTBOUND_MAX_BODY_COORD;
    expect(await postCoordination({ endpoint: other.url }, request)).toMatchObject({ kind: 'result' });
    other.handler = () => ({ status: 201, body: 'x'.repeat(20 * 1024 * 1024) });
    expect((await rejection(postCoordination({ endpoint: other.url }, request))).message).toMatch(/larger than 1 MiB/);
  });
});
