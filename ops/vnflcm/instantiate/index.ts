/** InstantiateVnf: the request, the workflow type and its summary (workflow.ts tells the steps). */
import { vnfName, type OperationModule } from '../../operation';
import { InstantiateVnfRequest } from './request';
import { precheckInstantiate } from './precheck';

export const instantiateOp: OperationModule<typeof InstantiateVnfRequest> = {
  workflowType: 'instantiate',
  request: InstantiateVnfRequest,
  requestName: 'InstantiateVnfRequest',
  task: { method: 'POST', path: 'instantiate', versions: ['v1', 'v2'] },
  precheck: precheckInstantiate,
  summary: (s) => {
    const p = s.params as Partial<InstantiateVnfRequest>;
    const level = p.instantiationLevelId ? `, level ${p.instantiationLevelId}` : '';
    return `Instantiate ${vnfName(s)} flavour ${p.flavourId}${level}${s.vimId ? ` on VIM ${s.vimId}` : ''}`;
  },
};
