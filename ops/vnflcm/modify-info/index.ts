/** ModifyVnfInfo: PATCH of the instance itself (not a task resource), its request, workflow type and summary. */
import { vnfName, type OperationModule } from '../../operation';
import { precheckModifyInfo } from './precheck';
import { VnfInfoModificationRequest } from './request';

export const modifyInfoOp: OperationModule<typeof VnfInfoModificationRequest> = {
  workflowType: 'modifyInfo',
  request: VnfInfoModificationRequest,
  requestName: 'VnfInfoModificationRequest',
  task: { method: 'PATCH', path: '', versions: ['v1', 'v2'] },
  precheck: precheckModifyInfo,
  summary: (s) => `Modify ${vnfName(s)}: ${Object.keys(s.params).join(', ') || 'nothing'}`,
};
