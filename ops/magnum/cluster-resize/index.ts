/** Cluster resize (POST /v1/clusters/{id}/actions/resize): a nodegroup to node_count, nodes_to_remove first. */
import { clusterLabel, type MagnumOperationModule } from '../operation';
import { precheckResize } from './precheck';
import { ResizeInput } from './request';

export const clusterResizeOp: MagnumOperationModule<ResizeInput> = {
  operation: 'cluster-resize',
  workflowType: 'magnumClusterResize',
  route: {
    method: 'post', path: '/clusters/:cluster/actions/resize', policy: 'clusters', since: { minor: 7, what: 'resize' },
    body: { schema: ResizeInput, resource: 'cluster_resize_req' }, answer: 'uuid', description: 'Resize a nodegroup (the default worker one unless named)',
  },
  precheck: precheckResize,
  summary: (s) => {
    const remove = Array.isArray(s.params.nodesToRemove) && s.params.nodesToRemove.length ? `, removing ${s.params.nodesToRemove.join(', ')}` : '';
    if (s.params.replace === true) return `Auto-heal ${s.params.nodegroup} of ${clusterLabel(s)}: replace ${(s.params.nodesToRemove as string[]).join(', ')}`;
    return `Resize ${s.params.nodegroup ?? 'default-worker'} of ${clusterLabel(s)} to ${s.params.nodeCount} node(s)${remove}`;
  },
};
