/**
 * The one extension point for VNFD Vnflcm hooks (Mgmt Drivers): a step per
 * bound hook. `vnfcs` names the VNFCs the hook is about (healed or added
 * ones), read when the step runs; absent = all of the instance's VNFCs.
 * A built-in driver runs on the worker; a package script runs on the scripts
 * worker (workflow-steps/scripts.ts), sealed there by the worker.
 */
import { ActivityCancellationType, ApplicationFailure, executeChild, patched, proxyActivities, type RetryPolicy } from '@temporalio/workflow';
import type { LcmActivities } from '../lcm-activities';
import type { LcmHook } from '../model/vnfd';
import { acts } from './activities';
import type { Step } from './step';
import { exitText, scriptsWorker, SCRIPTS_PATCH, WAIT_FOR_CANCELLED } from './scripts';

/** Hooks may run for long (package installs): the activity heartbeats, and a worker crash is noticed within a minute. */
const HOOK_RETRY: RetryPolicy = { initialInterval: '5s', maximumInterval: '1m', maximumAttempts: 3 };
const hookOptions = { startToCloseTimeout: '3h', heartbeatTimeout: '1m', retry: HOOK_RETRY } as const;
const hookActsBefore = proxyActivities<LcmActivities>(hookOptions);
/** A cancelled hook has stopped before the step ends, so a retry never runs the same hook twice at once. */
const hookActsWaiting = proxyActivities<LcmActivities>({ ...hookOptions, cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED });
const hookActs = () => (patched(WAIT_FOR_CANCELLED) ? hookActsWaiting : hookActsBefore);

export function hookStep(opOccId: string, bound: string[], hook: LcmHook, vnfcs?: () => string[] | undefined): Step[] {
  if (!bound.includes(hook)) return [];
  return [{ name: `${hook} hook`, run: () => runHook(opOccId, hook, vnfcs?.()) }];
}

async function runHook(opOccId: string, hook: LcmHook, vnfcIds: string[] | undefined): Promise<void> {
  if (!patched(SCRIPTS_PATCH)) return hookActs().runLcmHook({ opOccId, hook, vnfcIds });
  const p = await acts.prepareLcmHook({ opOccId, hook, vnfcIds });
  if (p.kind === 'none') return;
  if (p.kind === 'builtin') return hookActs().runLcmHook({ opOccId, hook, vnfcIds });
  if (p.kind === 'workflow') {
    // a driver whose every step is an activity of its own: a child per hook run, shown under this operation
    await executeChild(p.workflowType, {
      workflowId: `${opOccId}-${hook}`, args: [{ opOccId, hook, vnfcIds }],
      staticSummary: `${p.driver} driver: ${hook} of operation ${opOccId}`,
    });
    return;
  }
  const r = await scriptsWorker({ startToCloseTimeout: '3h', retry: HOOK_RETRY }).runPackageScript({ sealed: p.sealed });
  if (r.exitCode !== 0) throw ApplicationFailure.nonRetryable(`hook ${hook}: ${p.name} ${exitText(r)}`, 'HookFailed');
}
