/** HealVnf (SOL002 per VNFC, SOL003 whole VNF): the request, the workflow type and its summary. */
import type { z } from 'zod';
import { vnfName, type OperationModule } from '../../operation';
import { HealVnfRequest } from './request';
import { precheckHeal } from './precheck';

export const healOp: OperationModule<typeof HealVnfRequest> = {
  workflowType: 'heal',
  request: HealVnfRequest,
  requestName: 'HealVnfRequest',
  task: { method: 'POST', path: 'heal', versions: ['v1', 'v2'] },
  precheck: precheckHeal,
  summary: (s) => {
    const p = s.params as Partial<z.infer<typeof HealVnfRequest>>;
    const vnfcs = p.vnfcInstanceId === undefined ? [] : ([] as string[]).concat(p.vnfcInstanceId);
    const what = vnfcs.length ? `VNFC ${vnfcs.join(', ')}` : 'the whole VNF';
    return `Heal ${vnfName(s)}: ${what}${p.cause ? ` (${p.cause})` : ''}`;
  },
};
