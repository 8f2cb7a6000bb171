/**
 * Certificate and quota bodies and the JSON patch as the Magnum API
 * takes them (magnum/api/controllers/v1/certificate.py, quota.py,
 * types.py): one zod schema each for validation, types and
 * OpenAPI. The operations' own bodies are in their folders
 * (ops/magnum/<operation>/request.ts). Null is absent; defaults are applied
 * by the routes, which know the template and the microversion.
 */
import { z } from 'zod';
import { Str255 } from './fields';

export const CertificateSignInput = z.object({
  cluster_uuid: Str255,
  csr: z.string().min(1).max(64 * 1024),
  ca_cert_type: z.enum(['kubernetes', 'etcd', 'front_proxy', 'front-proxy']).optional(),
}).openapi('CertificateSignRequest');
export type CertificateSignInput = z.infer<typeof CertificateSignInput>;

export const QuotaInput = z.object({
  project_id: Str255,
  resource: z.enum(['Cluster']),
  hard_limit: z.number().int().min(0).optional(),
}).openapi('Quota');
export type QuotaInput = z.infer<typeof QuotaInput>;

/** RFC 6902 as Magnum takes it (types.JsonPatchType): add, replace or remove on a /path with a string or int value. */
export const PatchOp = z.object({
  op: z.enum(['add', 'replace', 'remove']),
  path: z.string().regex(/^(\/[\w-]+)+$/, 'must look like /attribute or /attribute/key'),
  value: z.unknown().optional(),
}).strict();
export const PatchBody = z.array(PatchOp).max(200).openapi('JsonPatch');
export type PatchOp = z.infer<typeof PatchOp>;
