/**
 * Package scripts run on the scripts worker (its own process and task queue,
 * `<this workflow's task queue>-scripts`): a worker activity prepares the job
 * and seals it, the scripts worker runs it. Workflows recorded before this
 * (no SCRIPTS_PATCH marker) keep calling the old single activities.
 */
import { ActivityCancellationType, patched, proxyActivities, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import type { ScriptActivities } from '../lcm-activities/scripts';
import type { ScriptOutcome } from '../mgmt/script-channel';
import { scriptsTaskQueue } from './task-queues';

export const SCRIPTS_PATCH = 'scripts-on-own-worker';
/** From this patch on, a cancelled hook or script has stopped (its activity confirmed) before the workflow moves on. */
export const WAIT_FOR_CANCELLED = 'wait-for-cancelled-hooks-and-scripts';

/**
 * The scripts worker's activities. It heartbeats every 5 s: a dead scripts worker is noticed within 20 s,
 * and a cancelled script is killed (its process group) before the workflow moves on.
 */
export function scriptsWorker(o: Pick<ActivityOptions, 'startToCloseTimeout' | 'retry'>) {
  const waiting = patched(WAIT_FOR_CANCELLED) ? { cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED } : {};
  return proxyActivities<ScriptActivities>({ ...o, ...waiting, taskQueue: scriptsTaskQueue(workflowInfo().taskQueue), heartbeatTimeout: '20s' });
}

/** "exited 3: <last of stderr, else stdout>" (already masked by the scripts worker). */
export function exitText(r: ScriptOutcome): string {
  const out = r.stderr.trim().slice(-2000) || r.stdout.trim().slice(-2000);
  return `exited ${r.exitCode ?? r.signal}: ${out}`;
}
