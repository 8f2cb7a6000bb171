/** CA rotation (PATCH /v1/certificates/{cluster}): new CAs, every node moved onto them, old certificates refused. */
import { clusterLabel, type MagnumOperationModule } from '../operation';
import { precheckCaRotate } from './precheck';

export const caRotateOp: MagnumOperationModule<undefined> = {
  operation: 'ca-rotate',
  workflowType: 'magnumCaRotate',
  route: { method: 'patch', path: '/certificates/:cluster', policy: 'certificates', since: { minor: 5, what: 'rotate_ca' }, answer: 'uuid', description: 'Rotate the cluster\'s CAs' },
  precheck: precheckCaRotate,
  summary: (s) => `Rotate the CA of ${clusterLabel(s)}`,
};
