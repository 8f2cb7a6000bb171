/**
 * The OpenAPI document, generated from the same zod schemas the routes
 * validate with (GET /openapi.json).
 */
import { OpenAPIRegistry, OpenApiGeneratorV3 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { CancelModeRequest, CreateVnfRequest } from '../model/vnflcm';
import { taskRoute } from '../ops/operation';
import { VNF_LCM_OPERATIONS } from '../ops/registry';
import { CreateVnfPkgInfoRequest, VnfPkgInfoModifications } from './schemas/vnfpkgm';
import { VimRegisterRequest, VimUpdateRequest } from './schemas/vims';
import { magnumPaths } from './magnum/openapi';
import { subscriptionPaths } from './subscriptions-openapi';
import { ListQuery, NEXT_PAGE_HEADER } from './schemas/list-query';

const problem = { description: 'ProblemDetails', content: { 'application/problem+json': { schema: { type: 'object' as const } } } };
const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

export function openApiDocument(): object {
  const r = new OpenAPIRegistry();
  const schemas = { CreateVnfPkgInfoRequest, VnfPkgInfoModifications, CreateVnfRequest, CancelModeRequest, VimRegisterRequest, VimUpdateRequest };
  for (const [name, s] of Object.entries(schemas)) r.register(name, s);
  for (const op of Object.values(VNF_LCM_OPERATIONS)) r.register(op.requestName, op.request);
  const id = (name: string) => z.object({ [name]: z.string() });
  const page = (description: string) => ({ request: { query: ListQuery }, responses: { 200: { description, headers: NEXT_PAGE_HEADER }, 400: problem } });

  r.registerPath({ method: 'post', path: '/vnfpkgm/v1/vnf_packages', request: { body: json(CreateVnfPkgInfoRequest) }, responses: { 201: { description: 'VnfPkgInfo' }, 400: problem } });
  r.registerPath({ method: 'get', path: '/vnfpkgm/v1/vnf_packages', ...page('VnfPkgInfo[]') });
  r.registerPath({ method: 'patch', path: '/vnfpkgm/v1/vnf_packages/{vnfPkgId}', request: { params: id('vnfPkgId'), body: json(VnfPkgInfoModifications) }, responses: { 200: { description: 'VnfPkgInfoModifications' }, 409: problem } });
  for (const sub of ['', '/vnfd', '/package_content']) {
    r.registerPath({ method: 'get', path: `/vnfpkgm/v1/vnf_packages/{vnfPkgId}${sub}`, request: { params: id('vnfPkgId') }, responses: { 200: { description: sub ? sub.slice(1) : 'VnfPkgInfo' }, 404: problem } });
  }
  r.registerPath({ method: 'put', path: '/vnfpkgm/v1/vnf_packages/{vnfPkgId}/package_content', request: { params: id('vnfPkgId') }, responses: { 202: { description: 'Accepted; onboarding runs as a workflow' }, 409: problem } });

  for (const v of ['v1', 'v2']) {
    const base = `/vnflcm/${v}`;
    r.registerPath({ method: 'post', path: `${base}/vnf_instances`, request: { body: json(CreateVnfRequest) }, responses: { 201: { description: 'VnfInstance' }, 400: problem, 422: problem } });
    // every operation's task, from the operation registry
    for (const op of Object.values(VNF_LCM_OPERATIONS).filter((o) => o.task.versions.includes(v as 'v1' | 'v2'))) {
      const path = `${base}${taskRoute(op.task).replace(':id', '{vnfInstanceId}')}`;
      r.registerPath({ method: op.task.method === 'PATCH' ? 'patch' : 'post', path, request: { params: id('vnfInstanceId'), body: json(op.request) }, responses: { 202: { description: 'Accepted; Location = the op occ' }, 400: problem, 409: problem, 422: problem } });
    }
    for (const task of ['retry', 'rollback', 'fail']) {
      r.registerPath({ method: 'post', path: `${base}/vnf_lcm_op_occs/{vnfLcmOpOccId}/${task}`, request: { params: id('vnfLcmOpOccId') }, responses: { [task === 'fail' ? 200 : 202]: { description: task }, 409: problem } });
    }
    r.registerPath({ method: 'get', path: `${base}/vnf_instances`, ...page('VnfInstance[]') });
    r.registerPath({ method: 'get', path: `${base}/vnf_instances/{vnfInstanceId}`, request: { params: id('vnfInstanceId') }, responses: { 200: { description: 'VnfInstance' }, 404: problem } });
    r.registerPath({ method: 'get', path: `${base}/vnf_lcm_op_occs`, ...page('VnfLcmOpOcc[]') });
    r.registerPath({ method: 'get', path: `${base}/vnf_lcm_op_occs/{vnfLcmOpOccId}`, request: { params: id('vnfLcmOpOccId') }, responses: { 200: { description: 'VnfLcmOpOcc' }, 404: problem } });
    r.registerPath({ method: 'post', path: `${base}/vnf_lcm_op_occs/{vnfLcmOpOccId}/cancel`, request: { params: id('vnfLcmOpOccId'), body: json(CancelModeRequest) }, responses: { 202: { description: 'cancel' }, 409: problem } });
  }
  // Tacker's legacy VIM API (errors as {"TackerError": …})
  const tackerError = { description: 'TackerError', content: { 'application/json': { schema: { type: 'object' as const } } } };
  r.registerPath({ method: 'get', path: '/v1.0/vims', responses: { 200: { description: '{vims: [...]}' } } });
  r.registerPath({ method: 'post', path: '/v1.0/vims', request: { body: json(VimRegisterRequest) }, responses: { 201: { description: '{vim}' }, 400: tackerError } });
  r.registerPath({ method: 'get', path: '/v1.0/vims/{vimId}', request: { params: id('vimId') }, responses: { 200: { description: '{vim}' }, 404: tackerError } });
  r.registerPath({ method: 'put', path: '/v1.0/vims/{vimId}', request: { params: id('vimId'), body: json(VimUpdateRequest) }, responses: { 200: { description: '{vim}' }, 400: tackerError, 404: tackerError } });
  magnumPaths(r);
  subscriptionPaths(r);
  return new OpenApiGeneratorV3(r.definitions).generateDocument({
    openapi: '3.0.3',
    info: { title: 'NFV orchestrator (Tacker-compatible ETSI SOL003/SOL005)', version: '0.1.0' },
  });
}
