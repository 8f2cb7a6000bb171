/** ScaleVnf: the request, the workflow type and its summary (workflow.ts tells the steps). */
import type { z } from 'zod';
import { vnfName, type OperationModule } from '../../operation';
import { ScaleVnfRequest } from './request';
import { precheckScale } from './precheck';

export const scaleOp: OperationModule<typeof ScaleVnfRequest> = {
  workflowType: 'scale',
  request: ScaleVnfRequest,
  requestName: 'ScaleVnfRequest',
  task: { method: 'POST', path: 'scale', versions: ['v1', 'v2'] },
  precheck: precheckScale,
  summary: (s) => {
    const p = s.params as Partial<z.infer<typeof ScaleVnfRequest>>;
    const steps = p.numberOfSteps ?? 1;
    return `Scale ${p.type === 'SCALE_IN' ? 'in' : 'out'} ${vnfName(s)}: aspect ${p.aspectId} by ${steps} step${steps === 1 ? '' : 's'}`;
  },
};
