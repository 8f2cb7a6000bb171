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

export const VimRegisterRequest = z.object({
  vim: z.object({
    name: Name,
    description: z.string().max(1024).optional(),
    type: z.literal('openstack', { message: 'only openstack VIMs are supported' }).optional(),
    auth_url: z.url({ protocol: /^https?$/, message: 'auth_url must be an http(s) URL' }).max(2048),
    auth_cred: AuthCred,
    vim_project: VimProject,
    is_default: z.boolean().optional(),
    tenant_id: z.string().max(64).optional(),
    extra: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type VimRegisterRequest = z.infer<typeof VimRegisterRequest>;

export const VimUpdateRequest = z.object({
  vim: z.object({
    name: Name.optional(),
    description: z.string().max(1024).optional(),
    auth_cred: AuthCred.partial().optional(),
    vim_project: VimProject.partial().optional(),
    is_default: z.boolean().optional(),
    tenant_id: z.string().max(64).optional(),
    extra: z.record(z.string(), z.unknown()).optional(),
  }).strict(),
});
export type VimUpdateRequest = z.infer<typeof VimUpdateRequest>;
