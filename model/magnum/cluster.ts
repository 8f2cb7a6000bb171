/**
 * Cluster, nodegroup, action and certificate bodies as the Magnum API takes
 * them (magnum/api/controllers/v1/cluster.py, nodegroup.py, cluster_actions.py,
 * certificate.py, quota.py): one zod schema each for validation, types and
 * OpenAPI. Null is absent; defaults are applied by the routes, which know
 * the template and the microversion.
 */
import { z } from 'zod';
import { ClusterName, Labels, NodeLabels, NodeTaints, Str255 } from './fields';

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

export const NodegroupInput = z.object({
  name: Str255,
  node_count: z.number().int().min(0).optional(),
  min_node_count: z.number().int().min(0).optional(),
  max_node_count: z.number().int().min(0).optional(),
  role: Str255.optional(),
  flavor_id: Str255.optional(),
  image_id: Str255.optional(),
  docker_volume_size: z.number().int().min(1).optional(),
  labels: Labels.optional(),
  merge_labels: z.boolean().optional(),
  node_labels: NodeLabels.optional(),
  node_taints: NodeTaints.optional(),
}).openapi('Nodegroup');
export type NodegroupInput = z.infer<typeof NodegroupInput>;

export const NODEGROUP_READ_ONLY = ['uuid', 'id', 'cluster_id', 'project_id', 'node_addresses', 'is_default', 'stack_id', 'status', 'status_reason', 'version', 'links', 'created_at', 'updated_at', 'labels_overridden', 'labels_added', 'labels_skipped'] as const;

export const ResizeInput = z.object({
  node_count: z.number().int().min(0),
  nodes_to_remove: z.array(z.string().min(1).max(255)).max(1000).optional(),
  nodegroup: Str255.optional(),
}).openapi('ClusterResizeRequest');
export type ResizeInput = z.infer<typeof ResizeInput>;

export const UpgradeInput = z.object({
  cluster_template: Str255,
  max_batch_size: z.number().int().min(1).optional(),
  nodegroup: Str255.optional(),
}).openapi('ClusterUpgradeRequest');
export type UpgradeInput = z.infer<typeof UpgradeInput>;

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
