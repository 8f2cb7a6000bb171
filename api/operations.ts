/**
 * Starting an LCM operation and the operator's tasks on it. The op occ row
 * and the workflow are one unit: the row is written first (in a transaction
 * that also enforces one operation per instance), then the workflow with
 * id = op occ id is started; reconcileOperations() starts any a crash left
 * unstarted, so no op occ sits in STARTING with nothing behind it.
 */
import { WorkflowNotFoundError, ApplicationFailure } from '@temporalio/common';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { failOpOccIfIn, NoInstance, OpenOperation, openStartedOpOccIds, opOccById, unstartedOpOccs, type OpOccRow } from '../store/repos/op-occs';
import { recordAndStartOperation, startLcmWorkflow, WorkflowEngineUnavailable, type StartOperation } from '../ops/vnflcm/start';
import { CONFLICT, UNPROCESSABLE } from '../engine/contracts';
import { FINAL_STATES } from '../model/lcm-operation';
import type { ApiContext } from './context';
import { releaseChangeTarget } from '../store/package-usage';
import { conflict, HttpError, notFound, unprocessable } from './errors';
import { dispatchPending } from '../notify/dispatch';
import { queueStateNotifications } from '../notify/etsi/op-state';

export async function startOperation(ctx: ApiContext, s: StartOperation): Promise<OpOccRow> {
  try {
    return await recordAndStartOperation(ctx, s);
  } catch (e) {
    if (e instanceof NoInstance) throw notFound(e.message);
    if (e instanceof OpenOperation) throw conflict(e.message);
    if (e instanceof WorkflowEngineUnavailable) throw new HttpError(503, 'the workflow engine is unavailable; nothing was started, try again');
    throw e;
  }
}

/** At API start: start the workflows of op occs a crash left unstarted; settle those whose workflow ended without a final state. */
export async function reconcileOperations(ctx: ApiContext): Promise<number> {
  const orphans = await unstartedOpOccs(ctx.db);
  for (const op of orphans) await startLcmWorkflow(ctx, op);
  for (const id of await openStartedOpOccIds(ctx.db)) await settleOrphanedOp(ctx, id);
  return orphans.length;
}

/**
 * Sends an operator task (retry/rollback/fail/cancel) as a Temporal update; workflow refusals map to 409/422.
 * An op whose workflow is gone without a final state (terminated in the Web UI, or wedged by an older
 * version) can still be failed: `fail` settles it FAILED, and the instance is manageable again.
 */
export async function operatorTask(ctx: ApiContext, opOccId: string, update: string, args: unknown[] = []): Promise<void> {
  const noLongerRunning = async () => {
    if (update === 'fail' && (await settleOrphanedOp(ctx, opOccId))) return;
    throw conflict(`operation ${opOccId} is no longer running${update === 'fail' ? '' : '; POST .../fail marks it FAILED if it never ended'}`);
  };
  try {
    await ctx.temporal.workflow.getHandle(opOccId).executeUpdate(update, { args: args as [unknown] });
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return noLongerRunning();
    if (e instanceof WorkflowUpdateFailedError) {
      const cause = e.cause;
      const msg = cause?.message ?? e.message;
      if (cause instanceof ApplicationFailure && cause.type === UNPROCESSABLE) throw unprocessable(msg);
      if (cause instanceof ApplicationFailure && cause.type === CONFLICT) throw conflict(msg);
      throw conflict(msg);
    }
    const m = String((e as Error).message);
    if (/workflow execution already completed|not found/i.test(m)) return noLongerRunning();
    throw e;
  }
}

/**
 * An op occ not in a final state whose workflow has closed (or never existed
 * on this Temporal) can never move on: it becomes FAILED with the reason, and
 * a change_vnfpkg target it held is released. False when its workflow runs.
 */
export async function settleOrphanedOp(ctx: ApiContext, opOccId: string): Promise<boolean> {
  const op = await opOccById(ctx.db, opOccId);
  if (!op || FINAL_STATES.includes(op.operationState as never) || !op.workflowStarted) return false;
  let status: string;
  try {
    status = (await ctx.temporal.workflow.getHandle(opOccId).describe()).status.name;
  } catch (e) {
    if (!(e instanceof WorkflowNotFoundError)) throw e;
    status = 'NOT_FOUND';
  }
  if (status === 'RUNNING') return false;
  const settled = await failOpOccIfIn(ctx.db, opOccId, op.operationState, {
    status: 500, title: 'Operation workflow ended', detail: `the workflow of this operation ended (${status}) in state ${op.operationState}, without a final state; marked FAILED`,
  }, (q, row) => queueStateNotifications(q, ctx.cfg.apiBaseUrl, row, 'FAILED'));
  if (settled) {
    await dispatchPending(ctx.temporal, ctx.cfg.taskQueue, ctx.db, [op.vnfInstanceId]).catch((e: Error) => ctx.log.warn({ err: { message: e.message } }, 'notifications of a settled op queued; their delivery is woken later'));
    await releaseChangeTarget(ctx.db, opOccId);
    ctx.log.warn({ opOccId, workflowStatus: status, was: op.operationState }, 'op occ whose workflow ended without a final state marked FAILED');
  }
  return settled;
}
