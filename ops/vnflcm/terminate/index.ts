/** TerminateVnf: the request, the workflow type and its summary (workflow.ts tells the steps). */
import type { z } from 'zod';
import { vnfName, type OperationModule } from '../../operation';
import { TerminateVnfRequest } from './request';
import { precheckTerminate } from './precheck';

export const terminateOp: OperationModule<typeof TerminateVnfRequest> = {
  workflowType: 'terminate',
  request: TerminateVnfRequest,
  requestName: 'TerminateVnfRequest',
  task: { method: 'POST', path: 'terminate', versions: ['v1', 'v2'] },
  precheck: precheckTerminate,
  summary: (s) => {
    const p = s.params as Partial<z.infer<typeof TerminateVnfRequest>>;
    const grace = p.terminationType === 'GRACEFUL' && p.gracefulTerminationTimeout ? ` after ${p.gracefulTerminationTimeout} s` : '';
    return `Terminate ${vnfName(s)} (${p.terminationType}${grace})`;
  },
};
