/**
 * SOL013 §4.5 through the real API (issue 26 item 1): a method the standard
 * does not define on an existing resource is 405 Method Not Allowed with
 * `Allow`, as ProblemDetails on the ETSI APIs (v1 and v2), in Magnum's error
 * shape on /v1 and Tacker's on /v1.0; a path no resource has stays a 404.
 */
import { call } from '../support/api';
import { LATEST } from '../support/magnum';

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
