/** Magnum's /v1 in the OpenAPI document, from the same zod schemas its routes validate with. */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { CertificateSignInput, ClusterInput, NodegroupInput, PatchBody, QuotaInput, ResizeInput, UpgradeInput } from '../../model/magnum/cluster';
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
  r.registerPath({ method: 'post', path: '/v1/clusters/{ident}/actions/resize', request: { params: ident('ident'), body: json(ResizeInput) }, responses: ok(202, '{uuid}') });
  r.registerPath({ method: 'post', path: '/v1/clusters/{ident}/actions/upgrade', request: { params: ident('ident'), body: json(UpgradeInput) }, responses: ok(202, '{uuid}') });
  r.registerPath({ method: 'post', path: '/v1/clusters/{cluster}/nodegroups', request: { params: ident('cluster'), body: json(NodegroupInput) }, responses: ok(202, 'Nodegroup') });
  r.registerPath({ method: 'patch', path: '/v1/clusters/{cluster}/nodegroups/{ident}', request: { params: ident('cluster', 'ident'), body: json(PatchBody) }, responses: ok(202, 'Nodegroup') });
  r.registerPath({ method: 'post', path: '/v1/certificates', request: { body: json(CertificateSignInput) }, responses: ok(201, '{cluster_uuid, csr, pem}') });
  r.registerPath({ method: 'patch', path: '/v1/certificates/{ident}', request: { params: ident('ident') }, responses: ok(202, '{uuid}: CA rotation') });
  r.registerPath({ method: 'post', path: '/v1/quotas', request: { body: json(QuotaInput) }, responses: ok(201, 'Quota') });
}
