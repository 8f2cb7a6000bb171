/** Application-credential access rules as keystonemiddleware applies them (security review 3, Low 1). */
import { accessAllowed } from '../../api/auth/access-rules';

const rule = (path: string, method = 'GET', service = 'nfv-orchestration') => ({ service, method, path });

test('service type, method and path must all match; * is one segment, ** any number', () => {
  expect(accessAllowed([rule('/vnflcm/v1/vnf_instances')], 'GET', '/vnflcm/v1/vnf_instances')).toBe(true);
  expect(accessAllowed([rule('/vnflcm/v1/vnf_instances')], 'POST', '/vnflcm/v1/vnf_instances')).toBe(false);
  expect(accessAllowed([rule('/vnflcm/v1/vnf_instances', 'GET', 'compute')], 'GET', '/vnflcm/v1/vnf_instances')).toBe(false);
  expect(accessAllowed([rule('/vnflcm/v1/vnf_instances/*')], 'GET', '/vnflcm/v1/vnf_instances/abc')).toBe(true);
  expect(accessAllowed([rule('/vnflcm/v1/vnf_instances/*')], 'GET', '/vnflcm/v1/vnf_instances/abc/instantiate')).toBe(false);
  expect(accessAllowed([rule('/vnflcm/**')], 'GET', '/vnflcm/v1/vnf_instances/abc')).toBe(true);
  expect(accessAllowed([rule('/v1/clusters/**', 'GET', 'container-infra')], 'GET', '/v1/clusters')).toBe(true);
  expect(accessAllowed([rule('/v1/clusters/**', 'GET', 'nfv-orchestration')], 'GET', '/v1/clusters')).toBe(false);
  expect(accessAllowed([], 'GET', '/vnflcm/v1/vnf_instances')).toBe(false);
});

test('many ** in a rule are matched segment by segment (a backtracking matcher would not finish this)', () => {
  const pattern = `/${Array(60).fill('**').join('/')}/x`;
  expect(accessAllowed([rule(pattern)], 'GET', `/${Array(60).fill('a').join('/')}/y`)).toBe(false);
  expect(accessAllowed([rule(pattern)], 'GET', `/${Array(60).fill('a').join('/')}/x`)).toBe(true);
});
