/**
 * SOL013's protocol rules through the real API, as an NFVO's conformance run
 * checks them (issue 26 items 1 and 3):
 * - a method the standard does not define on an existing resource is 405
 *   Method Not Allowed with `Allow`, as ProblemDetails on the ETSI APIs (v1
 *   and v2), in Magnum's error shape on /v1 and Tacker's on /v1.0; a path no
 *   resource has stays a 404;
 * - status codes and headers per method and resource (packages, instances,
 *   tasks, op occs, subscriptions): 201 with Location, 202
 *   with Location for a task, 204, 404, 406 for an Accept that rules out
 *   JSON, 409, 412 for an If-Match that no longer matches, 416, 422 for a
 *   create naming a package that is not ENABLED; Version on
 *   every SOL003 answer; ProblemDetails as application/problem+json whose
 *   status is the HTTP status.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { sampleVariant } from '../../samples/variant';
import { apiUrl, call, onboard, waitOpState, type Res } from '../support/api';
import { LATEST } from '../support/magnum';

const SAMPLE = path.resolve(__dirname, '../../samples/two_vdu_vnf');

const ID = '0c2b7a3e-4d6f-4b5a-9e1d-2f3a4b5c6d7e';

test.each([
  ['PUT', '/vnfpkgm/v1/vnf_packages', 'GET, POST'],
  ['DELETE', `/vnfpkgm/v1/vnf_packages/${ID}/package_content`, 'GET, PUT'],
  ['DELETE', `/vnflcm/v1/vnf_lcm_op_occs/${ID}`, 'GET'],
  ['GET', `/vnflcm/v1/vnf_instances/${ID}/instantiate`, 'POST'],
  ['PUT', `/vnflcm/v2/vnf_instances/${ID}`, 'DELETE, GET, PATCH'],
  ['PATCH', '/vnflcm/v2/subscriptions', 'GET, POST'],
])('%s %s: 405, Allow: %s, ProblemDetails', async (method, path, allow) => {
  const r = await call(method, path, method === 'GET' || method === 'DELETE' ? undefined : {});
  expect(r.status).toBe(405);
  expect(r.headers.get('allow')).toBe(allow);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toMatchObject({ status: 405, title: 'Method Not Allowed', detail: expect.stringContaining(`The method ${method} is not allowed`) });
});

test('no resource at the path: still 404', async () => {
  expect((await call('PUT', '/vnflcm/v1/no_such_resources')).status).toBe(404);
  expect((await call('GET', `/vnflcm/v1/vnf_instances/${ID}/no_such_task`)).status).toBe(404);
});

test('Magnum /v1 and Tacker /v1.0 answer 405 with Allow in their own error shapes', async () => {
  const magnum = await call('PUT', '/v1/clusters', {}, LATEST);
  expect(magnum.status).toBe(405);
  expect(magnum.headers.get('allow')).toBe('GET, POST');
  expect(magnum.body.errors[0]).toMatchObject({ status: 405, code: 'client' });
  const tacker = await call('PUT', '/v1.0/vims', {});
  expect(tacker.status).toBe(405);
  expect(tacker.headers.get('allow')).toBe('GET, POST');
  expect(tacker.body.TackerError).toBeDefined();
});

/** A ProblemDetails answer of `status`, as SOL013 §6.3 shapes it. */
function expectProblem(r: Res, status: number): void {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toMatchObject({ status, title: expect.any(String), detail: expect.any(String) });
}

describe('VNF packages (SOL005)', () => {
  test('POST: 201 with Location; GET: ETag; PATCH with a stale If-Match: 412, nothing changed; with the current one: 200; DELETE: 204, then 404', async () => {
    const created = await call('POST', '/vnfpkgm/v1/vnf_packages', { userDefinedData: { owner: 'a' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${apiUrl()}/vnfpkgm/v1/vnf_packages/${created.body.id}`);
    expect(created.headers.get('content-type')).toMatch(/^application\/json/);
    const at = `/vnfpkgm/v1/vnf_packages/${created.body.id}`;
    const first = await call('GET', at);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[^"]+"$/);
    expect((await call('GET', at)).headers.get('etag')).toBe(etag); // the same representation, the same ETag

    expect((await call('PATCH', at, { userDefinedData: { owner: 'b' } }, { 'If-Match': etag! })).status).toBe(200);
    // another client read it before that change: its PATCH is refused and changes nothing
    expectProblem(await call('PATCH', at, { userDefinedData: { owner: 'c' } }, { 'If-Match': etag! }), 412);
    const now = await call('GET', at);
    expect(now.body.userDefinedData).toEqual({ owner: 'b' });
    expect(now.headers.get('etag')).not.toBe(etag);
    expect((await call('PATCH', at, { userDefinedData: { owner: 'd' } }, { 'If-Match': `"other", ${now.headers.get('etag')}` })).status).toBe(200);
    expect((await call('PATCH', at, { userDefinedData: { owner: 'e' } }, { 'If-Match': '*' })).status).toBe(200);

    expect((await call('DELETE', at)).status).toBe(204);
    expectProblem(await call('GET', at), 404);
  });

  test('an Accept without JSON: 406 before anything is written; the content resources weigh Accept themselves', async () => {
    const probe = `sol013-${Date.now()}`;
    expectProblem(await call('POST', '/vnfpkgm/v1/vnf_packages', { userDefinedData: { probe } }, { Accept: 'application/xml' }), 406);
    expect((await call('GET', `/vnfpkgm/v1/vnf_packages?all_fields&filter=(eq,userDefinedData/probe,${probe})`)).body).toEqual([]);
    expectProblem(await call('GET', '/vnfpkgm/v1/vnf_packages', undefined, { Accept: 'text/html' }), 406);
    for (const accept of ['application/json', 'application/*', '*/*', 'text/html, application/json;q=0.5']) {
      expect((await call('GET', '/vnfpkgm/v1/vnf_packages', undefined, { Accept: accept })).status).toBe(200);
    }
  });
});

describe('subscriptions (SOL003, v1 and v2)', () => {
  // the NFVO's notification endpoint: the test GET and every notification answered 204
  let server: http.Server;
  let callbackUri: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => { req.resume(); res.statusCode = 204; res.end(); });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    callbackUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notifications`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test.each(['v1', 'v2'])('%s: POST 201 with Location, GET 200, DELETE 204, then 404', async (v) => {
    const H = { Version: v === 'v1' ? '1.3.0' : '2.0.0' };
    const base = `/vnflcm/${v}/subscriptions`;
    const created = await call('POST', base, { callbackUri, filter: { notificationTypes: ['VnfIdentifierCreationNotification'] } }, H);
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${apiUrl()}${base}/${created.body.id}`);
    expect(created.headers.get('version')).toBe(H.Version);
    const at = `${base}/${created.body.id}`;
    expect((await call('GET', at, undefined, H)).body.callbackUri).toBe(callbackUri);
    expect((await call('DELETE', at, undefined, H)).status).toBe(204);
    expectProblem(await call('GET', at, undefined, H), 404);
  });
});

describe('VNF instances, tasks and op occs (SOL003, v1 and v2)', () => {
  let vnfdId: string;
  let pkgId: string;
  beforeAll(async () => {
    const pkg = await onboard(sampleVariant(SAMPLE).zip);
    vnfdId = pkg.vnfdId;
    pkgId = pkg.id;
  }, 300_000);

  test('a create naming a vnfdId whose package is DISABLED, or that no package has: 422 (SOL003 §5.4.2.3.1)', async () => {
    expect((await call('PATCH', `/vnfpkgm/v1/vnf_packages/${pkgId}`, { operationalState: 'DISABLED' })).status).toBe(200);
    try {
      const r = await call('POST', '/vnflcm/v2/vnf_instances', { vnfdId }, { Version: '2.0.0' });
      expectProblem(r, 422);
      expect(r.body.detail).toMatch(/DISABLED/);
    } finally {
      expect((await call('PATCH', `/vnfpkgm/v1/vnf_packages/${pkgId}`, { operationalState: 'ENABLED' })).status).toBe(200);
    }
    expectProblem(await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId: 'b1bb0ce7-ebca-4fa7-95ed-4840d70a1177' }), 422);
  });

  test('package content: a range past its end is 416 with Content-Range', async () => {
    const r = await call('GET', `/vnfpkgm/v1/vnf_packages/${pkgId}/package_content`, undefined, { Range: 'bytes=999999999-' });
    expect(r.status).toBe(416);
    expect(r.headers.get('content-range')).toMatch(/^bytes \*\/\d+$/);
  });

  test.each(['v1', 'v2'])('%s: Version on every answer; 201 + Location, ETag, 412 on a stale PATCH (no op occ), 202 + Location for the task, 409, 204, 404', async (v) => {
    const version = v === 'v1' ? '1.3.0' : '2.0.0';
    const base = `/vnflcm/${v}`;
    const H = { Version: version };
    const created = await call('POST', `${base}/vnf_instances`, { vnfdId, vnfInstanceName: `sol013-${v}` }, H);
    expect(created.status).toBe(201);
    expect(created.headers.get('version')).toBe(version);
    expect(created.headers.get('location')).toBe(`${apiUrl()}${base}/vnf_instances/${created.body.id}`);
    const at = `${base}/vnf_instances/${created.body.id}`;
    const read = await call('GET', at, undefined, H);
    const etag = read.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);

    const ops = async () => (await call('GET', `${base}/vnf_lcm_op_occs?filter=(eq,vnfInstanceId,${created.body.id})`, undefined, H)).body.length;
    const modified = await call('PATCH', at, { vnfInstanceName: `sol013-${v}-2` }, { ...H, 'If-Match': etag });
    expect(modified.status).toBe(202);
    expect(modified.headers.get('location')).toMatch(new RegExp(`^${apiUrl()}${base}/vnf_lcm_op_occs/[0-9a-f-]{36}$`));
    const opId = modified.headers.get('location')!.split('/').pop()!;
    await waitOpState(opId, ['COMPLETED'], 60_000, v);
    // the same ETag again: the instance changed since, so nothing starts
    expectProblem(await call('PATCH', at, { vnfInstanceName: `sol013-${v}-3` }, { ...H, 'If-Match': etag }), 412);
    expect(await ops()).toBe(1);
    expect((await call('GET', at, undefined, H)).body.vnfInstanceName).toBe(`sol013-${v}-2`);

    // a task the state does not allow: 409; an op occ task on a COMPLETED op: 409
    expectProblem(await call('POST', `${at}/terminate`, { terminationType: 'FORCEFUL' }, H), 409);
    expectProblem(await call('POST', `${base}/vnf_lcm_op_occs/${opId}/retry`, undefined, H), 409);
    // another major version than the path's: 406
    expectProblem(await call('GET', at, undefined, { Version: v === 'v1' ? '2.0.0' : '1.3.0' }), 406);
    expectProblem(await call('GET', at, undefined, { ...H, Accept: 'application/xml' }), 406);

    const deleted = await call('DELETE', at, undefined, H);
    expect(deleted.status).toBe(204);
    expect(deleted.headers.get('version')).toBe(version);
    const gone = await call('GET', at, undefined, H);
    expectProblem(gone, 404);
    expect(gone.headers.get('version')).toBe(version);
  });
});
