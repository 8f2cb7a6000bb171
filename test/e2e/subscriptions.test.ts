/**
 * LCM notification subscriptions through the stock python-tackerclient
 * (`openstack vnflcm subsc create|list|show|delete`, v1 and v2) and the API,
 * with the reference EM as the receiver checking each authentication:
 * what a create refuses (a failing test GET, the outbound policy, another
 * project's view), and the identifier notifications of an instance's
 * create and delete reaching the matching subscriptions only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { certificateThumbprint } from '../../coord/client';
import { startEm, type Em } from '../../em/server';
import { sampleVariant } from '../../samples/variant';
import { readState } from '../harness/state';
import { call, eventually, onboard } from '../support/api';
import { keystoneUser, type TestUser } from '../support/identity';
import { deduped, jsonFile, openstack, received, waitLines } from '../support/notifications';
import { createTestCa } from '../support/tls';
import { workflowHistoryText } from '../support/history-text';
import { etsiOrderingKey, notifyWorkflowId } from '../../notify/contracts';

const SAMPLE = path.resolve(__dirname, '../../samples/two_vdu_vnf');
let user: TestUser;
let other: TestUser;
let H: Record<string, string>;
let vnfdId: string;
let open: Em; // no authentication
let basicEm: Em; // HTTP Basic, and OAuth 2.0 client credentials by secret
let mtlsEm: Em; // mutual TLS; tokens bound to the client certificate
const ca = createTestCa('notification test CA');
const client = ca.issueClient('vnfm');

const subscribe = async (body: unknown, v = 'v1', headers = H) => call('POST', `/vnflcm/${v}/subscriptions`, body, headers);

beforeAll(async () => {
  const runId = Date.now().toString(36);
  user = await keystoneUser(`subsc-${runId}`, `subsc-user-${runId}`, 'member');
  other = await keystoneUser(`subsc-other-${runId}`, `subsc-other-user-${runId}`, 'member');
  H = await user.headers();
  const pkg = await onboard(sampleVariant(SAMPLE).zip, H);
  expect(pkg.onboardingState).toBe('ONBOARDED');
  vnfdId = pkg.vnfdId;
  // the VNFM's TLS material (COORD_CA_FILE, COORD_CLIENT_CERT/KEY of the harness; COORD_CLIENT_CERT_HOSTS=127.0.0.1)
  const dir = path.join(readState().dataDir, 'coord');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'ca.pem'), ca.cert);
  fs.writeFileSync(path.join(dir, 'client.pem'), client.cert);
  fs.writeFileSync(path.join(dir, 'client-key.pem'), client.key);
  const server = ca.issueServer({ ips: ['127.0.0.1'] });
  open = await startEm();
  basicEm = await startEm({ auth: { basic: { userName: 'nfvo', password: 'nfvo-basic-pw' }, oauth2: { clients: [{ clientId: 'vnfm', clientSecret: 'vnfm-client-secret' }] } } });
  mtlsEm = await startEm({ auth: { tls: { cert: server.cert, key: server.key, ca: ca.cert, requestClientCert: true }, oauth2: { clients: [{ clientId: 'vnfm' }] } } });
}, 180_000);
afterAll(async () => {
  await Promise.all([open?.close(), basicEm?.close(), mtlsEm?.close()]);
  fs.rmSync(path.join(readState().dataDir, 'coord'), { recursive: true, force: true });
});

test('openstack vnflcm subsc create, list, show and delete (v1 and v2); the password is never shown', async () => {
  const file = jsonFile('subsc.json', {
    filter: { vnfInstanceSubscriptionFilter: { vnfdIds: [vnfdId] }, notificationTypes: ['VnfLcmOperationOccurrenceNotification'], operationTypes: ['INSTANTIATE'] },
    callbackUri: `${basicEm.url}/notifications`,
    authentication: { authType: ['BASIC'], paramsBasic: { userName: 'nfvo', password: 'nfvo-basic-pw' } },
  });
  const created = await openstack(user, ['vnflcm', 'subsc', 'create', file]);
  expect(created['Callback URI']).toBe(`${basicEm.url}/notifications`);
  expect(created.Filter).toMatchObject({ vnfInstanceSubscriptionFilter: { vnfdIds: [vnfdId] } });
  expect(created.Links.self.href).toBe(`${readState().apiUrl}/vnflcm/v1/subscriptions/${created.ID}`);
  expect(basicEm.requests().some((r) => r.method === 'GET' && r.path === '/notifications' && r.authorization === 'Basic' && r.status === 204)).toBe(true);
  const listed: any[] = await openstack(user, ['vnflcm', 'subsc', 'list']);
  expect(listed.map((s) => s.ID)).toContain(created.ID);
  const shown = await openstack(user, ['vnflcm', 'subsc', 'show', created.ID]);
  expect(shown).toMatchObject({ ID: created.ID, 'Callback URI': `${basicEm.url}/notifications` });
  expect(JSON.stringify([created, listed, shown])).not.toContain('nfvo-basic-pw');
  // another project does not see it
  expect((await call('GET', `/vnflcm/v1/subscriptions/${created.ID}`, undefined, await other.headers())).status).toBe(404);
  expect((await call('GET', '/vnflcm/v1/subscriptions', undefined, await other.headers())).body.map((s: any) => s.id)).not.toContain(created.ID);
  expect((await call('DELETE', `/vnflcm/v1/subscriptions/${created.ID}`, undefined, await other.headers())).status).toBe(404);
  await openstack(user, ['vnflcm', 'subsc', 'delete', created.ID], false);
  await expect(openstack(user, ['vnflcm', 'subsc', 'show', created.ID])).rejects.toThrow(/not found/i);

  // v2 (Version 2.0.0): verbosity, the same CLI with --os-tacker-api-version 2
  const v2 = await openstack(user, ['--os-tacker-api-version', '2', 'vnflcm', 'subsc', 'create',
    jsonFile('subsc-v2.json', { callbackUri: `${open.url}/notifications`, verbosity: 'SHORT' })]);
  expect(v2.Links.self.href).toBe(`${readState().apiUrl}/vnflcm/v2/subscriptions/${v2.ID}`);
  const r = await call('GET', `/vnflcm/v2/subscriptions/${v2.ID}`, undefined, H);
  expect(r.headers.get('version')).toBe('2.0.0');
  expect(r.body).toMatchObject({ id: v2.ID, verbosity: 'SHORT' });
  await openstack(user, ['--os-tacker-api-version', '2', 'vnflcm', 'subsc', 'delete', v2.ID], false);
});

test('a create is refused with a 400 naming the field: failing test GET, outbound policy, bad filter', async () => {
  open.setNotificationBehaviour({ testStatus: 500 });
  let r = await subscribe({ callbackUri: `${open.url}/notifications` });
  open.setNotificationBehaviour({});
  expect(r.status).toBe(400);
  expect(r.body.detail).toMatch(/^callbackUri: the test GET of the callback answered 500, not 204/);
  // another service's answer is not echoed back (security review 3, M-1): here the API's own version document
  r = await subscribe({ callbackUri: `${readState().apiUrl}/vnflcm/v1/api_versions` });
  expect([r.status, r.body.detail]).toEqual([400, 'callbackUri: the test GET of the callback answered 200, not 204 No Content']);
  r = await subscribe({ callbackUri: 'http://127.0.0.1:1/notifications' }); // nothing listens
  expect(r.status).toBe(400);
  expect(r.body.detail).toMatch(/^callbackUri: the test GET of the callback failed: .*ECONNREFUSED/);
  // wrong credentials: the EM's 401
  r = await subscribe({ callbackUri: `${basicEm.url}/notifications`, authentication: { authType: ['BASIC'], paramsBasic: { userName: 'nfvo', password: 'wrong' } } });
  expect(r.status).toBe(400);
  expect(r.body.detail).toMatch(/answered 401/);
  expect(r.text).not.toContain('wrong');
  const before = open.requests().length;
  r = await subscribe({ callbackUri: 'http://169.254.169.254/latest/meta-data' });
  expect(r.status).toBe(400);
  expect(r.body.detail).toMatch(/^callbackUri: the outbound policy refuses the callbackUri http:\/\/169\.254\.169\.254\/latest\/meta-data: .*link-local/);
  r = await subscribe({ callbackUri: `${open.url}/notifications`, authentication: { authType: ['OAUTH2_CLIENT_CREDENTIALS'], paramsOauth2ClientCredentials: { clientId: 'x', clientPassword: 'y', tokenEndpoint: 'http://169.254.169.254/token' } } });
  expect(r.status).toBe(400);
  expect(r.body.detail).toMatch(/OAuth 2\.0 token endpoint/);
  r = await subscribe({ callbackUri: `${open.url}/notifications`, filter: { vnfInstanceSubscriptionFilter: { vnfInstanceIds: ['a'], vnfInstanceNames: ['b'] } } });
  expect(r.status).toBe(400);
  expect(r.body.detail).toMatch(/filter\.vnfInstanceSubscriptionFilter\.vnfInstanceIds: vnfInstanceIds and vnfInstanceNames are alternatives/);
  r = await subscribe({ callbackUri: `${open.url}/notifications`, filter: { operationTypes: ['FLY'] } });
  expect(r.status).toBe(400);
  expect(r.body.detail).toMatch(/filter\.operationTypes\[0\]/);
  r = await subscribe({ callbackUri: `${open.url}/notifications`, verbosity: 'SHORT' });
  expect([r.status, r.body.detail]).toEqual([400, expect.stringMatching(/^verbosity: a \/vnflcm\/v2 attribute/)]);
  expect(open.requests().length).toBe(before); // nothing was sent
});

describe('identifier notifications reach each receiver with its authentication, matching filters only', () => {
  const auths: [string, () => Em, () => any, string][] = [
    ['BASIC', () => basicEm, () => ({ authType: ['BASIC'], paramsBasic: { userName: 'nfvo', password: 'nfvo-basic-pw' } }), 'Basic'],
    ['OAUTH2_CLIENT_CREDENTIALS', () => basicEm, () => ({
      authType: ['OAUTH2_CLIENT_CREDENTIALS'], paramsOauth2ClientCredentials: { clientId: 'vnfm', clientPassword: 'vnfm-client-secret', tokenEndpoint: basicEm.tokenEndpoint },
    }), 'Bearer'],
    ['OAUTH2_CLIENT_CERT', () => mtlsEm, () => ({
      authType: ['OAUTH2_CLIENT_CERT'],
      paramsOauth2ClientCert: { clientId: 'vnfm', certificateRef: { type: 'x5t#S256', value: certificateThumbprint(client.cert) }, tokenEndpoint: mtlsEm.tokenEndpoint },
    }), 'Bearer'],
  ];

  test.each(auths)('%s', async (_mode, em, auth, scheme) => {
    const sub = await subscribe({ callbackUri: `${em().url}/notifications`, authentication: auth() });
    expect([sub.status, sub.text]).toEqual([201, expect.any(String)]);
    expect(sub.text).not.toMatch(/nfvo-basic-pw|vnfm-client-secret/);
    // only creations, of this package's instances
    const creations = await subscribe({
      callbackUri: `${open.url}/notifications`, filter: { vnfInstanceSubscriptionFilter: { vnfdIds: [vnfdId] }, notificationTypes: ['VnfIdentifierCreationNotification'] },
    });
    const elsewhere = await subscribe({ callbackUri: `${open.url}/notifications`, filter: { vnfInstanceSubscriptionFilter: { vnfdIds: ['no-such-vnfd'] } } });
    const inst = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId, vnfInstanceName: `subsc-${_mode}` }, H)).body;
    expect((await call('DELETE', `/vnflcm/v1/vnf_instances/${inst.id}`, undefined, H)).status).toBe(204);
    expect(await waitLines(em(), sub.body.id, 2)).toEqual(['VnfIdentifierCreationNotification', 'VnfIdentifierDeletionNotification']);
    const [c, d] = deduped(em(), sub.body.id);
    expect(c).toMatchObject({
      subscriptionId: sub.body.id, vnfInstanceId: inst.id, timeStamp: expect.any(String),
      _links: { vnfInstance: { href: `${readState().apiUrl}/vnflcm/v1/vnf_instances/${inst.id}` }, subscription: { href: `${readState().apiUrl}/vnflcm/v1/subscriptions/${sub.body.id}` } },
    });
    expect(c.id).not.toBe(d.id);
    expect(received(em(), sub.body.id).every((n) => n.authorization === scheme)).toBe(true);
    // the delivery's history holds ids, never a credential or the notification
    const { text: history } = await workflowHistoryText(notifyWorkflowId(etsiOrderingKey(sub.body.id, inst.id)));
    expect(history).toContain(c.id);
    expect(history).not.toMatch(/nfvo-basic-pw|vnfm-client-secret|BEGIN|VnfIdentifierCreationNotification/);
    if (_mode === 'OAUTH2_CLIENT_CERT') expect(received(em(), sub.body.id).every((n) => n.clientCertificate === certificateThumbprint(client.cert))).toBe(true);
    expect(await waitLines(open, creations.body.id, 1)).toEqual(['VnfIdentifierCreationNotification']);
    // the deliveries the owner sees
    const seen = (await call('GET', `/vnflcm/v1/subscriptions/${sub.body.id}/deliveries`, undefined, H)).body;
    expect(seen.map((x: any) => [x.notificationType, x.state])).toEqual([['VnfIdentifierDeletionNotification', 'DELIVERED'], ['VnfIdentifierCreationNotification', 'DELIVERED']]);
    expect((await call('GET', `/vnflcm/v1/subscriptions/${sub.body.id}/deliveries`, undefined, await other.headers())).status).toBe(404);
    await new Promise((r) => setTimeout(r, 1000));
    expect(received(open, creations.body.id)).toHaveLength(1);
    expect(received(open, elsewhere.body.id)).toHaveLength(0);
    for (const s of [sub, creations, elsewhere]) expect((await call('DELETE', `/vnflcm/v1/subscriptions/${s.body.id}`, undefined, H)).status).toBe(204);
  }, 120_000);
});

test('a subscription of another project gets nothing of this project', async () => {
  const theirs = await subscribe({ callbackUri: `${open.url}/notifications` }, 'v1', await other.headers());
  expect(theirs.status).toBe(201);
  const mine = await subscribe({ callbackUri: `${open.url}/notifications` });
  const inst = (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId }, H)).body;
  await waitLines(open, mine.body.id, 1);
  await eventually('no delivery to the other project', async () => (received(open, theirs.body.id).length === 0 ? true : undefined), 2000);
  expect(received(open, theirs.body.id)).toHaveLength(0);
  await call('DELETE', `/vnflcm/v1/vnf_instances/${inst.id}`, undefined, H);
});

test('no log of the run holds a subscription credential', () => {
  const dir = readState().logDir;
  for (const f of fs.readdirSync(dir)) expect([f, fs.readFileSync(path.join(dir, f), 'utf8')]).not.toEqual([f, expect.stringMatching(/nfvo-basic-pw|vnfm-client-secret|PRIVATE KEY/)]);
});
