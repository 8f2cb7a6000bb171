/**
 * A cluster template as the Magnum API takes it (magnum/api/controllers/v1/
 * cluster_template.py): one zod schema for validation, types and OpenAPI.
 * Null is absent (the client sends many nulls); defaults as Magnum's.
 */
import { z } from 'zod';
import { secretUrl } from '../../common/secret-schema';
import { DnsList, Labels, NoProxy, ProxyUrl, Str255 } from './fields';

export const COES = ['kubernetes'] as const;
export const NETWORK_DRIVERS = ['flannel', 'calico', 'cilium'] as const;
export const VOLUME_DRIVERS = ['cinder'] as const;
export const SERVER_TYPES = ['vm', 'bm'] as const;

export const ClusterTemplateInput = z.object({
  name: Str255.optional(),
  coe: z.enum(COES),
  image_id: Str255,
  flavor_id: Str255.optional(),
  master_flavor_id: Str255.optional(),
  keypair_id: Str255.optional(),
  external_network_id: Str255.optional(),
  fixed_network: Str255.optional(),
  fixed_subnet: Str255.optional(),
  network_driver: Str255.optional(),
  volume_driver: Str255.optional(),
  dns_nameserver: DnsList.optional(),
  apiserver_port: z.number().int().min(1024).max(65535).optional(),
  docker_volume_size: z.number().int().min(1).optional(),
  docker_storage_driver: Str255.optional(),
  cluster_distro: Str255.optional(),
  driver: Str255.optional(),
  http_proxy: secretUrl(ProxyUrl).optional(),
  https_proxy: secretUrl(ProxyUrl).optional(),
  no_proxy: NoProxy.optional(),
  insecure_registry: Str255.optional(),
  labels: Labels.optional(),
  tls_disabled: z.boolean().optional(),
  public: z.boolean().optional(),
  hidden: z.boolean().optional(),
  registry_enabled: z.boolean().optional(),
  master_lb_enabled: z.boolean().optional(),
  floating_ip_enabled: z.boolean().optional(),
  server_type: z.enum(SERVER_TYPES).optional(),
  tags: z.string().max(255).optional(),
}).openapi('ClusterTemplate');
export type ClusterTemplateInput = z.infer<typeof ClusterTemplateInput>;

/** Fields the API sets: refused in a request ("Cannot set read only field"). */
export const TEMPLATE_READ_ONLY = ['uuid', 'project_id', 'user_id', 'links', 'created_at', 'updated_at'] as const;

/** What a template holds once stored: the input with Magnum's defaults filled in. */
export type ClusterTemplateAttrs = Omit<ClusterTemplateInput, 'name' | 'public' | 'hidden' | 'http_proxy' | 'https_proxy'> & {
  network_driver: string;
  server_type: string;
  tls_disabled: boolean;
  registry_enabled: boolean;
  master_lb_enabled: boolean;
  floating_ip_enabled: boolean;
  labels: Labels;
};

/** Magnum's defaults (api and conductor) for what the request left out. */
export function withTemplateDefaults(i: ClusterTemplateInput): ClusterTemplateAttrs {
  const { name: _n, public: _p, hidden: _h, http_proxy: _hp, https_proxy: _hsp, ...rest } = i;
  return {
    ...rest,
    network_driver: i.network_driver ?? 'flannel',
    server_type: i.server_type ?? 'vm',
    tls_disabled: i.tls_disabled ?? false,
    registry_enabled: i.registry_enabled ?? false,
    master_lb_enabled: i.master_lb_enabled ?? false,
    floating_ip_enabled: i.floating_ip_enabled ?? true,
    labels: i.labels ?? {},
  };
}

/** Attributes a template in use keeps (magnum db api `_is_publishing_cluster_template` and the patch checks). */
export const TEMPLATE_UNREMOVABLE = ['network_driver', 'external_network_id', 'tls_disabled', 'public', 'server_type', 'coe', 'registry_enabled', 'cluster_distro', 'hidden', 'image_id'] as const;
