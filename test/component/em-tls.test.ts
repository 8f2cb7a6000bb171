/**
 * The reference EM over HTTPS: server-authenticated TLS, mutual TLS, and
 * OAUTH2_CLIENT_CERT (token obtained with the client certificate, bound to
 * it). Certificates come from the openssl CLI (em/certs.ts).
 */
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { generatePki, type IssuedCert, type TestPki } from '../../em/certs';
import { type Em, startEm } from '../../em/server';

interface Res { status: number; headers: Record<string, string | string[] | undefined>; text: string }

function call(
  url: string,
  o: { method?: string; headers?: Record<string, string>; body?: string; ca?: string; client?: IssuedCert } = {},
): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method: o.method ?? 'GET', agent: false, headers: { ...o.headers, ...(o.body ? { 'content-length': String(Buffer.byteLength(o.body)) } : {}) },
        ...(o.ca ? { ca: o.ca } : {}), ...(o.client ? { cert: o.client.cert, key: o.client.key } : {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(o.body);
  });
}

const coordReq = JSON.stringify({
  vnfInstanceId: 'vnf-1',
  vnfLcmOpOccId: 'op-1',
  lcmOperationType: 'CHANGE_VNFPKG',
  coordinationActionName: 'prv.tacker_organization.coordination_test',
  inputParams: { vnfcInstanceId: 'vnfc-1' },
  _links: { vnfLcmOpOcc: { href: 'http://127.0.0.1:9890/vnflcm/v2/vnf_lcm_op_occs/op-1' }, vnfInstance: { href: 'http://127.0.0.1:9890/vnflcm/v2/vnf_instances/vnf-1' } },
});
const JSON_V = { version: '1.0.0', 'content-type': 'application/json' };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('reference EM over TLS', () => {
  let dir: string;
  let pki: TestPki;
  let rogue: TestPki;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'em-tls-'));
    pki = generatePki(path.join(dir, 'pki'), { clients: ['vnfm', 'other'] });
    // same names, another CA: not trusted by the EM
    rogue = generatePki(path.join(dir, 'rogue'), { clients: ['vnfm'], caName: 'rogue CA' });
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('HTTPS with BASIC, no client certificate asked', () => {
    let em: Em;
    beforeAll(async () => {
      em = await startEm({ auth: { basic: { userName: 'tacker', password: 'tacker' }, tls: { cert: pki.server.cert, key: pki.server.key } } });
    });
    afterAll(() => em.close());

    it('serves https with an absolute https Location', async () => {
      expect(em.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const auth = { authorization: `Basic ${Buffer.from('tacker:tacker').toString('base64')}` };
      em.setBehaviour({ mode: 'async', result: 'CONTINUE', polls: 0 });
      const r = await call(`${em.url}/lcmcoord/v1/coordinations`, { method: 'POST', headers: { ...JSON_V, ...auth }, body: coordReq, ca: pki.ca.cert });
      expect(r.status).toBe(202);
      expect(r.headers.location).toMatch(new RegExp(`^${em.url}/lcmcoord/v1/coordinations/`));
      const g = await call(r.headers.location as string, { headers: { ...JSON_V, ...auth }, ca: pki.ca.cert });
      expect(g.status).toBe(200);
      expect(JSON.parse(g.text).coordinationResult).toBe('CONTINUE');
      // the server certificate is checked by the client: without the CA it fails
      await expect(call(`${em.url}/healthz`)).rejects.toThrow(/self.signed|unable to verify|certificate/i);
    });
  });

  describe('mutual TLS', () => {
    let em: Em;
    beforeAll(async () => {
      em = await startEm({ auth: { tls: { cert: pki.server.cert, key: pki.server.key, ca: pki.ca.cert, requestClientCert: true } } });
    });
    afterAll(() => em.close());

    it('accepts a client certificate signed by the trusted CA and records its thumbprint', async () => {
      const r = await call(`${em.url}/lcmcoord/v1/coordinations`, { method: 'POST', headers: JSON_V, body: coordReq, ca: pki.ca.cert, client: pki.clients.vnfm });
      expect(r.status).toBe(201);
      expect(JSON.parse(r.text).coordinationResult).toBe('CONTINUE');
      expect(em.requests().at(-1)).toMatchObject({ method: 'POST', status: 201, clientCertificate: pki.clients.vnfm!.x5tS256 });
    });

    it('refuses connections without a client certificate or with an untrusted one', async () => {
      const before = em.requests().length;
      await expect(call(`${em.url}/lcmcoord/v1/coordinations`, { method: 'POST', headers: JSON_V, body: coordReq, ca: pki.ca.cert })).rejects.toThrow(/certificate required/);
      await expect(
        call(`${em.url}/lcmcoord/v1/coordinations`, { method: 'POST', headers: JSON_V, body: coordReq, ca: pki.ca.cert, client: rogue.clients.vnfm }),
      ).rejects.toThrow(/alert|socket hang up|ECONNRESET/i);
      expect(em.requests().length).toBe(before);
      expect(em.coordinations()).toHaveLength(1);
    });
  });

  describe('OAUTH2_CLIENT_CERT', () => {
    let em: Em;
    beforeAll(async () => {
      em = await startEm({
        auth: {
          oauth2: { clients: [{ clientId: 'vnfm', certificateX5tS256: pki.clients.vnfm!.x5tS256 }, { clientId: 'any-cert' }] },
          tls: { cert: pki.server.cert, key: pki.server.key, ca: pki.ca.cert, requestClientCert: true },
        },
      });
    });
    afterAll(() => em.close());

    const token = (client: IssuedCert, clientId: string) =>
      call(em.tokenEndpoint, { method: 'POST', headers: FORM, body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId }).toString(), ca: pki.ca.cert, client });

    it('issues a token to the client authenticated by its certificate, usable with that certificate only', async () => {
      const t = await token(pki.clients.vnfm!, 'vnfm');
      expect(t.status).toBe(200);
      const tok = JSON.parse(t.text);
      expect(tok).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
      const bearer = { authorization: `Bearer ${tok.access_token}` };

      const r = await call(`${em.url}/lcmcoord/v1/coordinations`, { method: 'POST', headers: { ...JSON_V, ...bearer }, body: coordReq, ca: pki.ca.cert, client: pki.clients.vnfm });
      expect(r.status).toBe(201);
      // without the token: 401 even over mutual TLS
      const noToken = await call(`${em.url}/lcmcoord/v1/coordinations`, { method: 'POST', headers: JSON_V, body: coordReq, ca: pki.ca.cert, client: pki.clients.vnfm });
      expect(noToken.status).toBe(401);
      // the token is bound to the certificate it was obtained with (RFC 8705)
      const stolen = await call(`${em.url}/lcmcoord/v1/coordinations`, { method: 'POST', headers: { ...JSON_V, ...bearer }, body: coordReq, ca: pki.ca.cert, client: pki.clients.other });
      expect(stolen.status).toBe(401);
      expect(stolen.headers['www-authenticate']).toMatch(/error="invalid_token".*another client certificate/);
    });

    it('refuses a certificate not registered for the client, and unknown clients', async () => {
      let t = await token(pki.clients.other!, 'vnfm');
      expect(t.status).toBe(401);
      expect(JSON.parse(t.text).error).toBe('invalid_client');
      t = await token(pki.clients.vnfm!, 'nobody');
      expect(t.status).toBe(401);
      t = await call(em.tokenEndpoint, { method: 'POST', headers: FORM, body: 'grant_type=client_credentials', ca: pki.ca.cert, client: pki.clients.vnfm });
      expect(t.status).toBe(400);
      expect(JSON.parse(t.text).error).toBe('invalid_request');
      // a client registered without a thumbprint accepts any trusted certificate
      t = await token(pki.clients.other!, 'any-cert');
      expect(t.status).toBe(200);
      // no certificate at all: the handshake is refused
      await expect(call(em.tokenEndpoint, { method: 'POST', headers: FORM, body: 'grant_type=client_credentials&client_id=vnfm', ca: pki.ca.cert })).rejects.toThrow(/certificate required/);
    });
  });
});
