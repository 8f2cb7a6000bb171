/** Nodegroup update (PATCH .../nodegroups/{id}): min/max, and its node labels and taints applied to its nodes. */
import { clusterLabel, type MagnumOperationModule } from '../operation';

export const nodegroupUpdateOp: MagnumOperationModule = {
  operation: 'nodegroup-update',
  workflowType: 'magnumNodegroupUpdate',
  summary: (s) => `Update nodegroup ${s.params.nodegroup} of ${clusterLabel(s)}`,
};
