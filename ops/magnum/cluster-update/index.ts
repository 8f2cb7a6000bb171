/**
 * Cluster update (PATCH /v1/clusters/{id} node_count): the default-worker
 * nodegroup resized. The PATCH also takes the health fields, which are no
 * operation, so its route is the cluster resource's own (api/magnum/routes/clusters.ts).
 */
import { clusterLabel, type MagnumOperationModule } from '../operation';
import { precheckNodeCount, type NodeCountChange } from './precheck';

export const clusterUpdateOp: MagnumOperationModule<NodeCountChange> = {
  operation: 'cluster-update',
  workflowType: 'magnumClusterUpdate',
  precheck: precheckNodeCount,
  summary: (s) => `Update ${clusterLabel(s)}: node_count ${s.params.nodeCount}${s.params.rollback ? ' (rollback on failure)' : ''}`,
};
