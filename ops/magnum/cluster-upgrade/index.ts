/** Cluster upgrade (POST /v1/clusters/{id}/actions/upgrade): the cluster, or one nodegroup, onto another template. */
import { clusterLabel, type MagnumOperationModule } from '../operation';
import { precheckUpgrade } from './precheck';
import { UpgradeInput } from './request';

export const clusterUpgradeOp: MagnumOperationModule<UpgradeInput> = {
  operation: 'cluster-upgrade',
  workflowType: 'magnumClusterUpgrade',
  route: {
    method: 'post', path: '/clusters/:cluster/actions/upgrade', policy: 'clusters',
    since: { minor: 8, what: 'upgrade', badRequestAt: { 7: 'ClusterUpgradeNotSupported: upgrading a cluster needs API version 1.8 or later.' } },
    body: { schema: UpgradeInput, resource: 'cluster_upgrade_req' }, rollback: true, answer: 'uuid',
    description: 'Upgrade the cluster, or one nodegroup, onto another template (?rollback=True: a failure takes the upgraded nodes back)',
  },
  precheck: precheckUpgrade,
  summary: (s) => `Upgrade ${s.params.nodegroup ? `${s.params.nodegroup} of ` : ''}${clusterLabel(s)} to template ${s.params.templateName ?? s.params.templateId}${s.params.rollback ? ' (rollback on failure)' : ''}`,
};
