/** Nodegroup delete (DELETE .../nodegroups/{id}): its nodes leave Kubernetes, its servers the stack. */
import { badRequest } from '../../../common/http-error';
import { clusterLabel, type MagnumOperationModule } from '../operation';
import { notBusy } from '../shared/refusals';

export const nodegroupDeleteOp: MagnumOperationModule<undefined> = {
  operation: 'nodegroup-delete',
  workflowType: 'magnumNodegroupDelete',
  route: { method: 'delete', path: '/clusters/:cluster/nodegroups/:nodegroup', policy: 'nodegroups', since: { minor: 9, what: 'nodegroup' }, answer: 'none', description: 'Delete a nodegroup (not a default one)' },
  precheck: async ({ nodegroup: g }) => {
    if (!g) throw new Error('nodegroup-delete is routed with :nodegroup');
    if (g.isDefault) throw badRequest('Deleting a default nodegroup is not supported.');
    return {
      status: 'UPDATE_IN_PROGRESS', opParams: { nodegroupId: g.id, nodegroup: g.name, nodeCount: 0 },
      check: notBusy,
      nodegroups: async () => ({ ids: [g.id], status: 'DELETE_IN_PROGRESS' }),
    };
  },
  summary: (s) => `Delete nodegroup ${s.params.nodegroup} of ${clusterLabel(s)}`,
};
