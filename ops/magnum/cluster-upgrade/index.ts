/** Cluster upgrade (POST /v1/clusters/{id}/actions/upgrade): the cluster, or one nodegroup, onto another template. */
import { clusterLabel, type MagnumOperationModule } from '../operation';

export const clusterUpgradeOp: MagnumOperationModule = {
  operation: 'cluster-upgrade',
  workflowType: 'magnumClusterUpgrade',
  summary: (s) => `Upgrade ${s.params.nodegroup ? `${s.params.nodegroup} of ` : ''}${clusterLabel(s)} to template ${s.params.templateName ?? s.params.templateId}${s.params.rollback ? ' (rollback on failure)' : ''}`,
};
