/** POST /v1/clusters/{id}/actions/upgrade (1.8; cluster_actions.py ClusterUpgradeRequest). */
import { z } from 'zod';
import { Str255 } from '../../../model/magnum/fields';

export const UpgradeInput = z.object({
  cluster_template: Str255,
  max_batch_size: z.number().int().min(1).optional(),
  nodegroup: Str255.optional(),
}).openapi('ClusterUpgradeRequest');
export type UpgradeInput = z.infer<typeof UpgradeInput>;
