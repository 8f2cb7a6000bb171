/** CA rotation (PATCH /v1/certificates/{cluster}): new CAs, every node moved onto them, old certificates refused. */
import { clusterLabel, type MagnumOperationModule } from '../operation';

export const caRotateOp: MagnumOperationModule = {
  operation: 'ca-rotate',
  workflowType: 'magnumCaRotate',
  summary: (s) => `Rotate the CA of ${clusterLabel(s)}`,
};
