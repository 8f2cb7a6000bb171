/** Nodegroup create (POST /v1/clusters/{id}/nodegroups): new workers in the cluster's stack, joined. */
import { clusterLabel, type MagnumOperationModule } from '../operation';

export const nodegroupCreateOp: MagnumOperationModule = {
  operation: 'nodegroup-create',
  workflowType: 'magnumNodegroupCreate',
  summary: (s) => `Create nodegroup ${s.params.nodegroup} (${s.params.nodeCount} node(s), role ${s.params.role}) in ${clusterLabel(s)}`,
};
