/** ChangeExtVnfConnectivity: the request, the workflow type and its summary (workflow.ts tells the steps). */
import { vnfName, type OperationModule } from '../../operation';
import { precheckChangeExtConn } from './precheck';
import { ChangeExtVnfConnectivityRequest } from './request';

export const changeExtConnOp: OperationModule<typeof ChangeExtVnfConnectivityRequest> = {
  workflowType: 'changeExtConn',
  request: ChangeExtVnfConnectivityRequest,
  requestName: 'ChangeExtVnfConnectivityRequest',
  task: { method: 'POST', path: 'change_ext_conn', versions: ['v1', 'v2'] },
  precheck: precheckChangeExtConn,
  summary: (s) => {
    const links = (s.params as Partial<ChangeExtVnfConnectivityRequest>).extVirtualLinks ?? [];
    return `Change the external connectivity of ${vnfName(s)}: ${links.map((l) => `${l.extCps.map((c) => c.cpdId).join(', ')} -> ${l.resourceId}`).join('; ')}`;
  },
};
