/** The one extension point for VNFD Vnflcm hooks (Mgmt Drivers): a step per bound hook. */
import type { LcmHook } from '../vnfpkg/vnfd-model';
import type { Step } from './engine';
import { acts } from './activities';

export function hookStep(opOccId: string, bound: string[], hook: LcmHook): Step[] {
  if (!bound.includes(hook)) return [];
  return [{ name: `${hook} hook`, run: () => acts.runLcmHook({ opOccId, hook }) }];
}
