/**
 * Coordination API client (SOL002 /lcmcoord/v1), the protocol part, against
 * an in-test HTTP server on 127.0.0.1: 201 / 503 / 202 outcomes, Retry-After
 * (seconds and HTTP-date), Location resolution, polling the Location itself,
 * cancel, error classification, HTTP Basic, and no secret in any message.
 */
import { rejection } from '../support/coord';
import {
  cancelCoordination, getCoordination, parseRetryAfter, postCoordination,
  type CoordTarget,
} from '../../coord/client';
import type { LcmCoordRequest } from '../../model/coordination';
import { startTestServer, type Reply, type TestServer } from '../support/tls';

const request: LcmCoordRequest = {
  vnfInstanceId: 'b18a8a15-8973-4202-a2f0-a67a109fc461',
  vnfLcmOpOccId: '2cae986e-7fea-4aeb-9b22-f81b35800838',
  lcmOperationType: 'CHANGE_VNFPKG',
  coordinationActionName: 'prv.tacker_organization.coordination_test',
  inputParams: { vnfcInstanceId: ['VDU1-0'] },
  _links: {
    vnfLcmOpOcc: { href: 'http://127.0.0.1:9890/vnflcm/v2/vnf_lcm_op_occs/2cae986e-7fea-4aeb-9b22-f81b35800838' },
    vnfInstance: { href: 'http://127.0.0.1:9890/vnflcm/v2/vnf_instances/b18a8a15-8973-4202-a2f0-a67a109fc461' },
  },
};
const coord = (id: string, result: 'CONTINUE' | 'ABORT' | 'CANCELLED' = 'CONTINUE') => ({
  id, coordinationResult: result, vnfInstanceId: request.vnfInstanceId, vnfLcmOpOccId: request.vnfLcmOpOccId,
  lcmOperationType: request.lcmOperationType, coordinationActionName: request.coordinationActionName,
  outputParams: { done: true },
});


let srv: TestServer;
let target: CoordTarget;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv.close());
beforeEach(() => {
  srv.seen.length = 0;
  target = { endpoint: srv.url };
});

describe('parseRetryAfter', () => {
  const now = new Date('2025-03-01T12:00:00Z');
  test('delay-seconds', () => {
    expect(parseRetryAfter('7', now, 5000)).toBe(7000);
    expect(parseRetryAfter(' 0 ', now, 5000)).toBe(0);
    expect(parseRetryAfter('120', now, 5000)).toBe(120_000);
  });
  test('HTTP-date in all three RFC 9110 forms, past dates give 0', () => {
    expect(parseRetryAfter('Sat, 01 Mar 2025 12:00:30 GMT', now, 5000)).toBe(30_000);
    expect(parseRetryAfter('Saturday, 01-Mar-25 12:01:00 GMT', now, 5000)).toBe(60_000);
    expect(parseRetryAfter('Sat Mar  1 12:00:10 2025', now, 5000)).toBe(10_000);
    expect(parseRetryAfter('Sat, 01 Mar 2025 11:00:00 GMT', now, 5000)).toBe(0);
  });
  test('absent or unreadable: the default', () => {
    expect(parseRetryAfter(undefined, now, 5000)).toBe(5000);
    expect(parseRetryAfter('', now, 5000)).toBe(5000);
    expect(parseRetryAfter('soon', now, 5000)).toBe(5000);
    expect(parseRetryAfter('-3', now, 5000)).toBe(5000);
    expect(parseRetryAfter('1.5', now, 5000)).toBe(5000);
    expect(parseRetryAfter('2025-03-01T12:00:30Z', now, 4000)).toBe(4000); // ISO 8601 is not an HTTP-date
    expect(parseRetryAfter('May the force', now, 5000)).toBe(5000);
  });
});

describe('postCoordination', () => {
  test('201: synchronous result; POST {endpoint}/lcmcoord/v1/coordinations with Version 1.0.0 and the request body', async () => {
    srv.handler = () => ({ status: 201, body: { ...coord('c1'), extra: 'ignored' } });
    const out = await postCoordination({ endpoint: `${srv.url}/em/` }, request);
    expect(out).toEqual({ kind: 'result', coord: coord('c1') });
    expect(srv.seen).toHaveLength(1);
    const r = srv.seen[0];
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/em/lcmcoord/v1/coordinations');
    expect(r.headers.version).toBe('1.0.0');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers.authorization).toBeUndefined();
    expect(JSON.parse(r.body)).toEqual(request);
  });

  test('201 with coordinationResult ABORT is a result (the workflow decides)', async () => {
    srv.handler = () => ({ status: 201, body: coord('c2', 'ABORT') });
    expect(await postCoordination(target, request)).toEqual({ kind: 'result', coord: coord('c2', 'ABORT') });
  });

  test('503 with Retry-After in seconds: busy with that delay and the ProblemDetails', async () => {
    const problem = { status: 503, detail: 'another coordination is running' };
    srv.handler = () => ({ status: 503, headers: { 'retry-after': '7' }, body: problem });
    expect(await postCoordination(target, request)).toEqual({ kind: 'busy', retryAfterMs: 7000, problem });
  });

  test('503 with Retry-After as an HTTP-date: busy until that date', async () => {
    srv.handler = () => ({ status: 503, headers: { 'retry-after': new Date(Date.now() + 20_000).toUTCString() }, body: { status: 503, detail: 'busy' } });
    const out = await postCoordination(target, request);
    expect(out.kind).toBe('busy');
    const ms = (out as { retryAfterMs: number }).retryAfterMs;
    expect(ms).toBeGreaterThan(17_000); // toUTCString drops the milliseconds
    expect(ms).toBeLessThanOrEqual(20_000);
  });

  test('503 without (or with an unreadable) Retry-After: 5 s', async () => {
    srv.handler = () => ({ status: 503 });
    expect(await postCoordination(target, request)).toEqual({ kind: 'busy', retryAfterMs: 5000 });
    srv.handler = () => ({ status: 503, headers: { 'retry-after': 'later' } });
    expect(await postCoordination(target, request)).toMatchObject({ kind: 'busy', retryAfterMs: 5000 });
  });

  test('202 with a relative Location and Retry-After: async, Location made absolute', async () => {
    srv.handler = () => ({ status: 202, headers: { location: '/lcmcoord/v1/coordinations/abc', 'retry-after': '3' } });
    expect(await postCoordination(target, request)).toEqual({
      kind: 'async', location: `${srv.url}/lcmcoord/v1/coordinations/abc`, retryAfterMs: 3000,
    });
  });

  test('202 with an absolute Location and no Retry-After: async, 5 s', async () => {
    const location = `http://localhost:${srv.port}/jobs/xyz?x=1`;
    srv.handler = () => ({ status: 202, headers: { location } });
    expect(await postCoordination(target, request)).toEqual({ kind: 'async', location, retryAfterMs: 5000 });
  });

  test('202 without Location is a protocol error; a non-http Location is refused', async () => {
    srv.handler = () => ({ status: 202 });
    const e = await rejection(postCoordination(target, request));
    expect(e).toMatchObject({ status: 202, retryable: false });
    expect(e.message).toMatch(/without a Location/);
    srv.handler = () => ({ status: 202, headers: { location: 'file:///etc/passwd' } });
    expect((await rejection(postCoordination(target, request))).message).toMatch(/not http or https/);
  });

  test('4xx: not retryable, the ProblemDetails detail in the message', async () => {
    srv.handler = () => ({ status: 400, body: { status: 400, detail: 'coordinationActionName is not declared in the VNFD' } });
    const e = await rejection(postCoordination(target, request));
    expect(e).toMatchObject({ status: 400, retryable: false, stage: 'api' });
    expect(e.message).toContain('coordinationActionName is not declared in the VNFD');
    expect(e.message).toContain('/lcmcoord/v1/coordinations');
  });

  test('5xx other than 503: retryable', async () => {
    srv.handler = () => ({ status: 500, body: { status: 500, detail: 'EM database down' } });
    const e = await rejection(postCoordination(target, request));
    expect(e).toMatchObject({ status: 500, retryable: true });
    expect(e.message).toContain('EM database down');
    srv.handler = () => ({ status: 502, body: '<html>bad gateway</html>' });
    expect(await rejection(postCoordination(target, request))).toMatchObject({ status: 502, retryable: true });
  });

  test('a 201 whose body is not an LcmCoord: not retryable', async () => {
    srv.handler = () => ({ status: 201, body: { id: 'x' } });
    const e = await rejection(postCoordination(target, request));
    expect(e).toMatchObject({ status: 201, retryable: false });
    expect(e.message).toMatch(/invalid LcmCoord/);
  });

  test('network errors and timeouts: retryable, no status', async () => {
    const dead = await startTestServer();
    const deadUrl = dead.url;
    await dead.close();
    const e1 = await rejection(postCoordination({ endpoint: deadUrl }, request));
    expect(e1).toMatchObject({ retryable: true, code: 'ECONNREFUSED' });
    expect(e1.status).toBeUndefined();

    srv.handler = () => 'hang';
    const t0 = Date.now();
    const e2 = await rejection(postCoordination({ endpoint: srv.url, timeoutMs: 300 }, request));
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(e2).toMatchObject({ retryable: true, code: 'ETIMEDOUT' });
    expect(e2.message).toMatch(/timed out after 300 ms/);
  });

  test('a bad endpoint is a configuration error', async () => {
    expect(await rejection(postCoordination({ endpoint: 'not a url' }, request))).toMatchObject({ retryable: false, stage: 'config' });
    expect(await rejection(postCoordination({ endpoint: 'ftp://127.0.0.1/' }, request))).toMatchObject({ retryable: false, stage: 'config' });
  });
});

describe('getCoordination', () => {
  test('GETs the Location URL itself: 202 pending (Retry-After), then 200 result', async () => {
    let polls = 0;
    srv.handler = (r): Reply => {
      if (r.method === 'POST') return { status: 202, headers: { location: '/em/jobs/j-42', 'retry-after': '2' } };
      polls++;
      return polls === 1 ? { status: 202, headers: { 'retry-after': '1' } } : { status: 200, body: coord('j-42') };
    };
    const posted = await postCoordination(target, request);
    expect(posted).toEqual({ kind: 'async', location: `${srv.url}/em/jobs/j-42`, retryAfterMs: 2000 });
    const location = (posted as { location: string }).location;
    expect(await getCoordination(target, location)).toEqual({ kind: 'pending', retryAfterMs: 1000 });
    expect(await getCoordination(target, location)).toEqual({ kind: 'result', coord: coord('j-42') });
    const gets = srv.seen.filter((r) => r.method === 'GET');
    expect(gets.map((r) => r.url)).toEqual(['/em/jobs/j-42', '/em/jobs/j-42']); // not endpoint + /coordinations/{id}
    expect(gets[0].headers.version).toBe('1.0.0');
  });

  test('202 without Retry-After: pending 5 s; 503: pending with its delay; 404: not retryable', async () => {
    srv.handler = () => ({ status: 202 });
    expect(await getCoordination(target, `${srv.url}/lcmcoord/v1/coordinations/a`)).toEqual({ kind: 'pending', retryAfterMs: 5000 });
    srv.handler = () => ({ status: 503, headers: { 'retry-after': '9' } });
    expect(await getCoordination(target, `${srv.url}/lcmcoord/v1/coordinations/a`)).toEqual({ kind: 'pending', retryAfterMs: 9000 });
    srv.handler = () => ({ status: 404, body: { status: 404, detail: 'no coordination a' } });
    const e = await rejection(getCoordination(target, `${srv.url}/lcmcoord/v1/coordinations/a`));
    expect(e).toMatchObject({ status: 404, retryable: false });
    expect(e.message).toContain('no coordination a');
  });
});

describe('cancelCoordination', () => {
  test('by id: POST .../coordinations/{id}/cancel, 202', async () => {
    srv.handler = () => ({ status: 202 });
    await cancelCoordination({ endpoint: `${srv.url}/` }, 'c 1');
    expect(srv.seen).toHaveLength(1);
    expect(srv.seen[0]).toMatchObject({ method: 'POST', url: '/lcmcoord/v1/coordinations/c%201/cancel' });
    expect(srv.seen[0].headers.version).toBe('1.0.0');
  });

  test('by Location (absolute or absolute-path)', async () => {
    srv.handler = () => ({ status: 202 });
    await cancelCoordination(target, `${srv.url}/em/jobs/j-42`);
    await cancelCoordination(target, '/em/jobs/j-43/');
    await cancelCoordination(target, `${srv.url}/em/jobs/j-44?view=full`);
    expect(srv.seen.map((r) => r.url)).toEqual(['/em/jobs/j-42/cancel', '/em/jobs/j-43/cancel', '/em/jobs/j-44/cancel']);
  });

  test('404 and 409 mean already finished; other errors are classified', async () => {
    srv.handler = () => ({ status: 404, body: { status: 404, detail: 'gone' } });
    await expect(cancelCoordination(target, 'c2')).resolves.toBeUndefined();
    srv.handler = () => ({ status: 409, body: { status: 409, detail: 'already completed' } });
    await expect(cancelCoordination(target, 'c2')).resolves.toBeUndefined();
    srv.handler = () => ({ status: 403, body: { status: 403, detail: 'not yours' } });
    expect(await rejection(cancelCoordination(target, 'c2'))).toMatchObject({ status: 403, retryable: false });
    srv.handler = () => ({ status: 500 });
    expect(await rejection(cancelCoordination(target, 'c2'))).toMatchObject({ status: 500, retryable: true });
  });
});

describe('HTTP Basic', () => {
  const password = 'pa55-w0rd-s3cret';
  const basic = (): CoordTarget => ({
    endpoint: srv.url,
    authentication: { authType: ['BASIC'], paramsBasic: { userName: 'tacker', password } },
  });

  test('Authorization: Basic base64(userName:password) on POST, GET and cancel', async () => {
    srv.handler = (r) => (r.method === 'GET' ? { status: 200, body: coord('b1') } : r.url.endsWith('/cancel') ? { status: 202 } : { status: 201, body: coord('b1') });
    await postCoordination(basic(), request);
    await getCoordination(basic(), `${srv.url}/lcmcoord/v1/coordinations/b1`);
    await cancelCoordination(basic(), 'b1');
    const want = `Basic ${Buffer.from(`tacker:${password}`).toString('base64')}`;
    expect(srv.seen.map((r) => r.headers.authorization)).toEqual([want, want, want]);
  });

  test('401 is not retryable, and the password never shows, even when the server echoes it', async () => {
    srv.handler = (r) => ({ status: 401, body: { status: 401, detail: `bad credentials: ${r.headers.authorization} (${password})` } });
    const e = await rejection(postCoordination(basic(), request));
    expect(e).toMatchObject({ status: 401, retryable: false });
    expect(srv.seen).toHaveLength(1); // Basic: no repeat
    expect(e.message).toContain('bad credentials');
    expect(e.message).not.toContain(password);
    expect(e.message).not.toContain(Buffer.from(`tacker:${password}`).toString('base64'));
    expect(JSON.stringify(e)).not.toContain(password);
  });

  test('a listed authType without parameters, or no usable one, is a configuration error before any call', async () => {
    const e = await rejection(postCoordination({ endpoint: srv.url, authentication: { authType: ['BASIC'] } }, request));
    expect(e).toMatchObject({ retryable: false, stage: 'config' });
    expect(srv.seen).toHaveLength(0);
  });
});
