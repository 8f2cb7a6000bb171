/**
 * The one extension point for VNFD Vnflcm hooks (Mgmt Drivers): a step per
 * bound hook. `vnfcs` names the VNFCs the hook is about (healed or added
 * ones), read when the step runs; absent = all of the instance's VNFCs.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { LcmActivities } from '../activities';
import type { LcmHook } from '../vnfpkg/vnfd-model';
import type { Step } from './engine';

/** Hooks may run for long (package installs): the activity heartbeats, and a worker crash is noticed within a minute. */
const hookActs = proxyActivities<LcmActivities>({
  startToCloseTimeout: '3h',
  heartbeatTimeout: '1m',
  retry: { initialInterval: '5s', maximumInterval: '1m', maximumAttempts: 3 },
});

export function hookStep(opOccId: string, bound: string[], hook: LcmHook, vnfcs?: () => string[] | undefined): Step[] {
  if (!bound.includes(hook)) return [];
  return [{ name: `${hook} hook`, run: () => hookActs.runLcmHook({ opOccId, hook, vnfcIds: vnfcs?.() }) }];
}
