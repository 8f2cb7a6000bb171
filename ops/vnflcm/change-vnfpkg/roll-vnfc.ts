/**
 * One VNFC of a rolling change_vnfpkg, as a child workflow (one per VNFC in
 * the Temporal UI, and the parent's history stays small at 1,000 VNFCs):
 * stack update that puts the rolling targets [newFrom, newTo) on the new
 * package -> wait UPDATE_COMPLETE -> coordinate this VNFC.
 * A coordination wait (Retry-After, 202 polling) is one activity that parks
 * it in the store, completed by the worker's poller: the run does not wake
 * while parked, so the worker may evict it, no activity runs for it, and a
 * worker crash leaves it to the other workers' pollers.
 */
import { ActivityCancellationType, ApplicationFailure, CancellationScope, isCancellation, patched, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { LcmCoord } from '../../../model/coordination';
import type { ChangeVnfpkgActivities, CoordMode, CoordSide, RollingTarget } from './activities';
import type { CoordinateScriptActivities } from './coordinate-script';
import { activitiesOf, bookkeeping, OUTSIDE_RETRY } from '../../../workflow-steps/activities';
import { exitText, scriptsWorker, SCRIPTS_PATCH } from '../../../workflow-steps/scripts';
import { sent, waitForStack } from '../../../workflow-steps/stack';
import { waitsTaskQueue } from '../../../workflow-steps/task-queues';

/** The activities of change_vnfpkg (./activities.ts) and of its coordinate scripts (./coordinate-script.ts). */
type RollActivities = ChangeVnfpkgActivities & CoordinateScriptActivities;
/** This operation's own activities, with the shared proxies' options. */
const own = activitiesOf<RollActivities>();

/** A coordinate script may run long; it is killed at its own timeout. (Histories from before SCRIPTS_PATCH.) */
const scriptActs = proxyActivities<RollActivities>({ startToCloseTimeout: '25h', heartbeatTimeout: '1m', retry: { maximumAttempts: 1 } });

/** From this patch on, the whole built-in coordination wait is one activity (coordination-wait.ts) instead of a timer per poll. */
export const COORD_WAIT_PATCH = 'coordination-wait-as-one-activity';
/** From this patch on, that activity parks the wait in the store and the worker's poller completes it (coordination-parking.ts). */
export const COORD_PARK_PATCH = 'coordination-wait-parked-in-store';

/**
 * The parked wait: it ends at the coordination's own timeout (the poller fails it then). No heartbeat: the
 * wait lives in the store, polled by any worker. A cancel does not wait for it; the op then cancels the
 * coordination itself (cancelCoordinationWait).
 */
const parked = (timeoutMs: number) => proxyActivities<RollActivities>({
  startToCloseTimeout: timeoutMs + 10 * 60_000,
  cancellationType: ActivityCancellationType.TRY_CANCEL,
  retry: OUTSIDE_RETRY,
});

/** The waits queue's activity: it ends at the coordination's own timeout; a dead worker is noticed within 30 s. */
const waits = (timeoutMs: number) => proxyActivities<RollActivities>({
  taskQueue: waitsTaskQueue(workflowInfo().taskQueue),
  startToCloseTimeout: timeoutMs + 10 * 60_000,
  heartbeatTimeout: '30s',
  // a cancelled wait has cancelled its coordination on the EM before the op moves on
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: OUTSIDE_RETRY,
});

export interface RollVnfcInput {
  opOccId: string;
  vnfInstanceId: string;
  heatPollMs: number;
  heatPollMaxMs?: number;
  oldPackageId: string;
  newPackageId: string;
  /** Rolling targets on the new package after this update: [newFrom, newTo). */
  newFrom: number;
  newTo: number;
  target: RollingTarget;
  /** Position of the target in the rolling order. */
  index: number;
  label: string;
  isRollback: boolean;
  coordination: CoordMode;
}

export async function rollVnfc(i: RollVnfcInput): Promise<void> {
  const { opOccId, vnfInstanceId, target, label, index } = i;
  // The counters let the op workflow know exactly how far it got, even when this child failed or was cancelled.
  await bookkeeping().recordStep({ opOccId, step: `${i.isRollback ? 'roll back' : 'update'} ${label}`, rolling: i.isRollback ? undefined : { moved: index + 1 } });
  const sentAt = await sent(() => own.acts.applyPackageMix({
    opOccId, templateFrom: i.oldPackageId, oldPackageId: i.oldPackageId, newPackageId: i.newPackageId, newFrom: i.newFrom, newTo: i.newTo, rebuilt: target.vnfcId,
  }));
  await waitForStack(vnfInstanceId, 'UPDATE', i, sentAt);
  await bookkeeping().recordStep({ opOccId, step: `coordinate ${label}${i.isRollback ? ' (rollback)' : ''}` });
  await coordinateVnfc(opOccId, target, i.isRollback, i.coordination, i.isRollback ? i.oldPackageId : i.newPackageId);
  await bookkeeping().recordStep({ opOccId, step: `${i.isRollback ? 'rolled back' : 'done'}: ${label}`, rolling: i.isRollback ? { rolledBack: index + 1 } : { coordinated: index + 1 } });
}

/**
 * One VNFC's coordination. The built-in action follows SOL002: 201 -> result;
 * 503 -> the same POST after Retry-After; 202 -> GET the Location after
 * Retry-After until decided. CONTINUE goes on; ABORT/CANCELLED, the timeout
 * or an operator cancel stop it (a pending coordination is cancelled on the EM).
 * `side` picks the script and vnfc_param when it is not the rollback's (BlueGreen's old VNFCs).
 */
export async function coordinateVnfc(opOccId: string, t: RollingTarget, isRollback: boolean, mode: CoordMode, packageId: string, side?: CoordSide): Promise<void> {
  if (mode.kind === 'none') return;
  const args = { opOccId, vnfcId: t.vnfcId, isRollback, ...(side ? { side } : {}) };
  if (mode.kind === 'script') {
    if (!patched(SCRIPTS_PATCH)) {
      await scriptActs.runCoordinateScript({ ...args, packageId, timeoutMs: mode.timeoutMs });
      return;
    }
    // Prepared and sealed on the worker, run on the scripts worker, once: a coordinate script need not be idempotent.
    const p = await own.acts.prepareCoordinateScript({ ...args, packageId, timeoutMs: mode.timeoutMs });
    const r = await scriptsWorker({ startToCloseTimeout: '25h', retry: { maximumAttempts: 1 } }).runPackageScript({ sealed: p.sealed });
    if (r.exitCode !== 0) throw ApplicationFailure.nonRetryable(`coordinate script ${p.name} for VNFC ${t.vnfcId} ${exitText(r)}`, 'CoordinationFailed');
    return;
  }
  const deadline = Date.now() + mode.timeoutMs;
  if (patched(COORD_PARK_PATCH)) {
    let coord: LcmCoord;
    try {
      coord = await parked(mode.timeoutMs).awaitCoordinationResult({ ...args, deadline, timeoutMs: mode.timeoutMs });
    } catch (e) {
      if (isCancellation(e)) await CancellationScope.nonCancellable(() => own.acts.cancelCoordinationWait(args));
      throw e;
    }
    if (coord.coordinationResult !== 'CONTINUE') throw refused(coord, t);
    return;
  }
  if (patched(COORD_WAIT_PATCH)) {
    const coord = await waits(mode.timeoutMs).awaitCoordination({ ...args, deadline, timeoutMs: mode.timeoutMs });
    if (coord.coordinationResult !== 'CONTINUE') throw refused(coord, t);
    return;
  }
  let location: string | undefined;
  let decided = false;
  try {
    for (;;) {
      const o = location ? await own.acts.coordGet({ ...args, location }) : await own.acts.coordPost(args);
      if (o.kind === 'result') {
        decided = true;
        if (o.coord.coordinationResult === 'CONTINUE') return;
        throw refused(o.coord, t);
      }
      if (o.kind === 'async') location = o.location;
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      await sleep(Math.min(o.retryAfterMs, remaining));
      if (Date.now() >= deadline) break;
    }
    throw ApplicationFailure.nonRetryable(`coordination of VNFC ${t.vnfcId} did not finish within ${mode.timeoutMs / 1000} s`, 'CoordinationTimeout');
  } finally {
    if (location && !decided) {
      const where = location;
      await CancellationScope.nonCancellable(() => own.acts.coordCancel({ ...args, location: where }));
    }
  }
}

/** ABORT or CANCELLED from the EM, with the EM's error when it gave one. */
function refused(coord: LcmCoord, t: RollingTarget): ApplicationFailure {
  const why = coord.error ? `: ${JSON.stringify(coord.error)}` : '';
  return ApplicationFailure.nonRetryable(`coordination ${coord.id} of VNFC ${t.vnfcId} ended ${coord.coordinationResult}${why}`, 'CoordinationRefused');
}
