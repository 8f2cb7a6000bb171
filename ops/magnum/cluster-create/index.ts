/** Cluster create (POST /v1/clusters): the workflow type and its summary (workflow.ts tells the steps). */
import { clusterLabel, type MagnumOperationModule } from '../operation';

export const clusterCreateOp: MagnumOperationModule = {
  operation: 'cluster-create',
  workflowType: 'magnumClusterCreate',
  summary: (s) => `Create ${clusterLabel(s)}: ${s.params.masterCount ?? 1} master(s), ${s.params.nodeCount ?? 1} node(s), timeout ${s.params.createTimeout ?? 60} min`,
};
