/**
 * 405 with Allow from Express's own route table (api/method-not-allowed.ts):
 * the methods of every route that matches a path, through routers mounted in
 * routers, with parameters and trailing slashes as Express matches them; a
 * path no route serves has none (it stays a 404).
 */
import express, { Router } from 'express';
import { allowedMethods } from '../../api/method-not-allowed';

function app() {
  const a = express();
  const lcm = Router();
  lcm.get('/vnf_lcm_op_occs', () => undefined);
  lcm.get('/vnf_lcm_op_occs/:id', () => undefined);
  lcm.post('/vnf_lcm_op_occs/:id/retry', () => undefined);
  lcm.post('/vnf_instances', () => undefined);
  lcm.get('/vnf_instances', () => undefined);
  lcm.use((_req, _res, next) => next()); // middleware is no route
  const inner = Router();
  inner.patch('/vnf_instances/:id', () => undefined);
  inner.delete('/vnf_instances/:id', () => undefined);
  lcm.use(inner);
  a.use('/vnflcm/v1', lcm);
  a.get('/healthz', () => undefined);
  return a;
}

test('the methods every matching route takes, through mounted routers; none where no route serves the path', () => {
  const a = app();
  expect(allowedMethods(a.router, '/vnflcm/v1/vnf_lcm_op_occs/abc')).toEqual(['GET']);
  expect(allowedMethods(a.router, '/vnflcm/v1/vnf_lcm_op_occs/abc/retry')).toEqual(['POST']);
  expect(allowedMethods(a.router, '/vnflcm/v1/vnf_instances')).toEqual(['GET', 'POST']);
  expect(allowedMethods(a.router, '/vnflcm/v1/vnf_instances/')).toEqual(['GET', 'POST']);
  expect(allowedMethods(a.router, '/vnflcm/v1/vnf_instances/x1')).toEqual(['DELETE', 'PATCH']);
  expect(allowedMethods(a.router, '/healthz')).toEqual(['GET']);
  expect(allowedMethods(a.router, '/vnflcm/v1/nothing')).toEqual([]);
  expect(allowedMethods(a.router, '/vnflcm/v2/vnf_instances')).toEqual([]);
  expect(allowedMethods(a.router, '/vnflcm/v1/vnf_lcm_op_occs/a/b/c')).toEqual([]);
  // a malformed escape matches no route (Express would answer 400 for it): no methods, not a throw
  expect(allowedMethods(a.router, '/vnflcm/v1/vnf_lcm_op_occs/%E0%A4%A')).toEqual([]);
});
