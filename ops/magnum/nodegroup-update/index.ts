/** Nodegroup update (PATCH .../nodegroups/{id}): min/max, and its node labels and taints applied to its nodes. */
import type { PatchOp } from '../../../model/magnum/cluster';
import { clusterLabel, type MagnumOperationModule } from '../operation';
import { precheckNodegroupUpdate } from './precheck';

export const nodegroupUpdateOp: MagnumOperationModule<PatchOp[]> = {
  operation: 'nodegroup-update',
  workflowType: 'magnumNodegroupUpdate',
  route: {
    method: 'patch', path: '/clusters/:cluster/nodegroups/:nodegroup', policy: 'nodegroups', since: { minor: 9, what: 'nodegroup' },
    body: 'json-patch', answer: 'nodegroup', description: 'Change a nodegroup\'s min/max, node labels and taints (a JSON patch)',
  },
  precheck: precheckNodegroupUpdate,
  summary: (s) => `Update nodegroup ${s.params.nodegroup} of ${clusterLabel(s)}`,
};
