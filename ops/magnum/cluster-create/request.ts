/** POST /v1/clusters (cluster.py Cluster): what the caller may set; the rest is read-only. */
import { z } from 'zod';
import { ClusterName, Labels, Str255 } from '../../../model/magnum/fields';

export const ClusterInput = z.object({
  name: ClusterName.optional(),
  cluster_template_id: Str255,
  keypair: Str255.optional(),
  node_count: z.number().int().min(0).optional(),
  master_count: z.number().int().min(1).optional(),
  docker_volume_size: z.number().int().min(1).optional(),
  labels: Labels.optional(),
  merge_labels: z.boolean().optional(),
  master_flavor_id: Str255.optional(),
  flavor_id: Str255.optional(),
  create_timeout: z.number().int().min(0).optional(),
  discovery_url: z.string().max(255).optional(),
  fixed_network: Str255.optional(),
  fixed_subnet: Str255.optional(),
  floating_ip_enabled: z.boolean().optional(),
  master_lb_enabled: z.boolean().optional(),
}).openapi('Cluster');
export type ClusterInput = z.infer<typeof ClusterInput>;

export const CLUSTER_READ_ONLY = [
  'uuid', 'status', 'status_reason', 'api_address', 'coe_version', 'container_version', 'project_id', 'user_id',
  'node_addresses', 'master_addresses', 'stack_id', 'cluster_id', 'faults', 'labels_overridden', 'labels_added',
  'labels_skipped', 'links', 'created_at', 'updated_at', 'health_status', 'health_status_reason',
] as const;
