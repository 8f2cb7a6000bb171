/** Cluster delete (DELETE /v1/clusters/{id}): allowed in any status; a running operation is superseded. */
import { clusterLabel, type MagnumOperationModule } from '../operation';

export const clusterDeleteOp: MagnumOperationModule<undefined> = {
  operation: 'cluster-delete',
  workflowType: 'magnumClusterDelete',
  route: { method: 'delete', path: '/clusters/:cluster', policy: 'clusters', answer: 'none', supersedes: true, description: 'Delete the cluster (in any status; a running operation is stopped)' },
  precheck: async () => ({
    status: 'DELETE_IN_PROGRESS',
    check: () => undefined, // Magnum deletes in any status
    nodegroups: async (_q, _c, groups) => ({ ids: groups.map((g) => g.id), status: 'DELETE_IN_PROGRESS' }),
  }),
  summary: (s) => `Delete ${clusterLabel(s)}`,
};
