/** Nodegroup create (POST /v1/clusters/{id}/nodegroups): new workers in the cluster's stack, joined. */
import { clusterLabel, type MagnumOperationModule } from '../operation';
import { precheckNodegroupCreate } from './precheck';
import { NodegroupInput, NODEGROUP_READ_ONLY } from './request';

export const nodegroupCreateOp: MagnumOperationModule<NodegroupInput> = {
  operation: 'nodegroup-create',
  workflowType: 'magnumNodegroupCreate',
  route: {
    method: 'post', path: '/clusters/:cluster/nodegroups', policy: 'nodegroups', since: { minor: 9, what: 'nodegroup' },
    body: { schema: NodegroupInput, resource: 'nodegroup', readOnly: NODEGROUP_READ_ONLY }, answer: 'nodegroup',
    description: 'Create a worker nodegroup',
  },
  precheck: precheckNodegroupCreate,
  summary: (s) => `Create nodegroup ${s.params.nodegroup} (${s.params.nodeCount} node(s), role ${s.params.role}) in ${clusterLabel(s)}`,
};
