/** ChangeCurrentVnfPkg (rolling update): the request, the workflow type and its summary. */
import { vnfName, type OperationModule } from '../../operation';
import { ChangeCurrentVnfPkgRequest } from './request';
import { precheckChangeVnfpkg } from './precheck';

export const changeVnfpkgOp: OperationModule<typeof ChangeCurrentVnfPkgRequest> = {
  workflowType: 'changeVnfpkg',
  request: ChangeCurrentVnfPkgRequest,
  requestName: 'ChangeCurrentVnfPkgRequest',
  task: { method: 'POST', path: 'change_vnfpkg', versions: ['v2'] },
  precheck: precheckChangeVnfpkg,
  summary: (s) => {
    const p = s.params as Partial<ChangeCurrentVnfPkgRequest>;
    const vdus = p.additionalParams?.vdu_params?.map((v) => v.vdu_id).join(', ');
    return `Change the package of ${vnfName(s)} to VNFD ${p.vnfdId} (${p.additionalParams?.upgrade_type ?? 'RollingUpdate'}${vdus ? ` of ${vdus}` : ''})`;
  },
};
