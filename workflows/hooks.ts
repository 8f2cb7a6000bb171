/**
 * The one extension point for VNFD Vnflcm hooks (Mgmt Drivers): a step per
 * bound hook. `vnfcs` names the VNFCs the hook is about (healed or added
 * ones), read when the step runs; absent = all of the instance's VNFCs.
 */
import type { LcmHook } from '../vnfpkg/vnfd-model';
import type { Step } from './engine';
import { acts } from './activities';

export function hookStep(opOccId: string, bound: string[], hook: LcmHook, vnfcs?: () => string[] | undefined): Step[] {
  if (!bound.includes(hook)) return [];
  return [{ name: `${hook} hook`, run: () => acts.runLcmHook({ opOccId, hook, vnfcIds: vnfcs?.() }) }];
}
