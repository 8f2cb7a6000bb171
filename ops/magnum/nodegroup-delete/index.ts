/** Nodegroup delete (DELETE .../nodegroups/{id}): its nodes leave Kubernetes, its servers the stack. */
import { clusterLabel, type MagnumOperationModule } from '../operation';

export const nodegroupDeleteOp: MagnumOperationModule = {
  operation: 'nodegroup-delete',
  workflowType: 'magnumNodegroupDelete',
  summary: (s) => `Delete nodegroup ${s.params.nodegroup} of ${clusterLabel(s)}`,
};
