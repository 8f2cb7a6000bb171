/** Cluster delete (DELETE /v1/clusters/{id}): allowed in any status; a running operation is superseded. */
import { clusterLabel, type MagnumOperationModule } from '../operation';

export const clusterDeleteOp: MagnumOperationModule = {
  operation: 'cluster-delete',
  workflowType: 'magnumClusterDelete',
  summary: (s) => `Delete ${clusterLabel(s)}`,
};
