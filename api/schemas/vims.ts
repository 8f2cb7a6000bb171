/**
 * Tacker's VIM API bodies (/v1.0/vims), as python-tackerclient's
 * `openstack vim register|set` sends them (a --config-file YAML turned into
 * auth_url, auth_cred, vim_project).
 */
import { z } from 'zod';
import { secret } from '../../common/secret-schema';

const Name = z.string().trim().min(1).max(255);
const AuthCred = z.object({
  username: z.string().min(1).max(255),
  password: secret(z.string().min(1).max(4096)),
  user_domain_name: z.string().max(255).optional(),
  cert_verify: z.enum(['True', 'False', 'true', 'false']).optional(),
  ssl_ca_cert: z.string().max(65536).optional(),
});
const VimProject = z.object({
  name: z.string().min(1).max(255),
  project_domain_name: z.string().max(255).optional(),
});

const VimCommon = {
  name: Name,
  description: z.string().max(1024).optional(),
  is_default: z.boolean().optional(),
  tenant_id: z.string().max(64).optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
};

const OpenStackVim = z.object({
  ...VimCommon,
  type: z.literal('openstack'),
  auth_url: z.url({ protocol: /^https?$/, message: 'auth_url must be an http(s) URL' }).max(2048),
  auth_cred: AuthCred,
  vim_project: VimProject,
});

/** A Kubernetes cluster as a VIM: its API server, a bearer token, and the cluster CA it is checked with. */
const KubernetesVim = z.object({
  ...VimCommon,
  type: z.literal('kubernetes'),
  auth_url: z.url({ protocol: /^https$/, message: 'auth_url must be the https URL of the Kubernetes API server' }).max(2048),
  auth_cred: z.object({
    bearer_token: secret(z.string().min(1).max(16384)),
    ssl_ca_cert: z.string().min(1, 'the cluster CA (PEM) that signed the API server certificate').max(65536),
  }),
  vim_project: z.object({ name: z.string().min(1).max(255) }).optional(),
});

/** By its `type` (openstack when absent, as python-tackerclient sends it), so errors name the fields of that kind. */
export const VimRegisterRequest = z.object({
  vim: z.preprocess(
    (v) => (v && typeof v === 'object' && !Array.isArray(v) && (v as { type?: unknown }).type === undefined ? { ...v, type: 'openstack' } : v),
    z.discriminatedUnion('type', [OpenStackVim, KubernetesVim], { error: 'vim.type must be openstack or kubernetes' }),
  ),
});
export type VimRegisterRequest = z.infer<typeof VimRegisterRequest>;

export const VimUpdateRequest = z.object({
  vim: z.object({
    name: Name.optional(),
    description: z.string().max(1024).optional(),
    auth_cred: AuthCred.partial().extend({ bearer_token: secret(z.string().min(1).max(16384)).optional() }).optional(),
    vim_project: VimProject.partial().optional(),
    is_default: z.boolean().optional(),
    tenant_id: z.string().max(64).optional(),
    extra: z.record(z.string(), z.unknown()).optional(),
  }).strict(),
});
export type VimUpdateRequest = z.infer<typeof VimUpdateRequest>;
