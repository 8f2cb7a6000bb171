/** Magnum's /v1 in the OpenAPI document, from the same zod schemas its routes validate with; the operations' routes from the registry. */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { CertificateSignInput, PatchBody, QuotaInput } from '../../model/magnum/cluster';
import { ClusterInput } from '../../ops/magnum/cluster-create/request';
import type { MagnumOperationModule } from '../../ops/magnum/operation';
import { MAGNUM_CLUSTER_OPERATIONS } from '../../ops/registry';
import { ClusterTemplateInput } from '../../model/magnum/template';

const errors = { description: 'Magnum errors {"errors": [{request_id, code, status, title, detail, links}]}', content: { 'application/json': { schema: { type: 'object' as const } } } };
const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
const ident = (...names: string[]) => z.object(Object.fromEntries(names.map((n) => [n, z.string()])));
const ok = (code: number, description: string) => ({ [code]: { description }, 400: errors, 403: errors, 404: errors, 406: errors, 409: errors });

export function magnumPaths(r: OpenAPIRegistry): void {
  r.registerPath({ method: 'post', path: '/v1/clustertemplates', request: { body: json(ClusterTemplateInput) }, responses: ok(201, 'ClusterTemplate') });
  r.registerPath({ method: 'get', path: '/v1/clustertemplates', responses: ok(200, '{clustertemplates, next?}') });
  r.registerPath({ method: 'patch', path: '/v1/clustertemplates/{ident}', request: { params: ident('ident'), body: json(PatchBody) }, responses: ok(200, 'ClusterTemplate') });
  r.registerPath({ method: 'post', path: '/v1/clusters', request: { body: json(ClusterInput) }, responses: ok(202, '{uuid}') });
  r.registerPath({ method: 'get', path: '/v1/clusters', responses: ok(200, '{clusters, next?}') });
  r.registerPath({ method: 'patch', path: '/v1/clusters/{ident}', request: { params: ident('ident'), body: json(PatchBody) }, responses: ok(202, '{uuid}') });
  r.registerPath({ method: 'post', path: '/v1/certificates', request: { body: json(CertificateSignInput) }, responses: ok(201, '{cluster_uuid, csr, pem}') });
  for (const op of Object.values(MAGNUM_CLUSTER_OPERATIONS) as MagnumOperationModule[]) {
    const route = op.route;
    if (!route) continue;
    const params = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
    const body = route.body === 'json-patch' ? PatchBody : route.body?.schema;
    r.registerPath({
      method: route.method, path: `/v1${route.path.replace(/:(\w+)/g, '{$1}')}`, description: `${route.description} (workflow ${op.workflowType})`,
      request: { params: ident(...params), ...(body ? { body: json(body) } : {}) },
      responses: route.answer === 'none' ? ok(204, 'deleted') : ok(202, route.answer === 'uuid' ? '{uuid}' : 'Nodegroup'),
    });
  }
  r.registerPath({ method: 'post', path: '/v1/quotas', request: { body: json(QuotaInput) }, responses: ok(201, 'Quota') });
}
