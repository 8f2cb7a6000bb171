/** POST /v1/clusters/{id}/nodegroups (1.9; nodegroup.py NodeGroup). */
import { z } from 'zod';
import { Labels, NodeLabels, NodeTaints, Str255 } from '../../../model/magnum/fields';

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
