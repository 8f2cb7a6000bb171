/** POST /v1/clusters/{id}/actions/resize (1.7; cluster_actions.py ClusterResizeRequest). */
import { z } from 'zod';
import { Str255 } from '../../../model/magnum/fields';

export const ResizeInput = z.object({
  node_count: z.number().int().min(0),
  nodes_to_remove: z.array(z.string().min(1).max(255)).max(1000).optional(),
  nodegroup: Str255.optional(),
}).openapi('ClusterResizeRequest');
export type ResizeInput = z.infer<typeof ResizeInput>;
