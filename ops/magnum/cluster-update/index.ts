/** Cluster update (PATCH /v1/clusters/{id} node_count): the default-worker nodegroup resized. */
import { clusterLabel, type MagnumOperationModule } from '../operation';

export const clusterUpdateOp: MagnumOperationModule = {
  operation: 'cluster-update',
  workflowType: 'magnumClusterUpdate',
  summary: (s) => `Update ${clusterLabel(s)}: node_count ${s.params.nodeCount}${s.params.rollback ? ' (rollback on failure)' : ''}`,
};
