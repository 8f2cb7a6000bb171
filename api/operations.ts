/**
 * Starting an LCM operation and the operator's tasks on it. The op occ row
 * and the workflow are one unit: the row is written first (in a transaction
 * that also enforces one operation per instance), then the workflow with
 * id = op occ id is started; reconcileOperations() starts any a crash left
 * unstarted, so no op occ sits in STARTING with nothing behind it.
 */
import crypto from 'node:crypto';
import { WorkflowNotFoundError, WorkflowExecutionAlreadyStartedError, ApplicationFailure } from '@temporalio/common';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { createOpOcc, deleteOpOcc, failOpOccIfIn, markWorkflowStarted, NoInstance, OpenOperation, openStartedOpOccIds, opOccById, unstartedOpOccs, type OpOccRow } from '../common/db/repos/op-occs';
import { instanceById } from '../common/db/repos/instances';
import { maskBySchema } from '../common/secret-schema';
import type { StartPlan } from '../ops/operation';
import { requestSchemaOf, VNF_LCM_OPERATIONS } from '../ops/registry';
import { describeOperation } from './operation-summary';
import { SA_LCM_OPERATION, SA_LCM_OPERATION_STATE, SA_VNF_INSTANCE_ID } from '../common/search-attributes';
import { CONFLICT, FINAL_STATES, LcmOperation, LcmOpInput, UNPROCESSABLE } from '../engine/contracts';
import type { ApiContext } from './context';
import type { Scope } from '../common/db/repos/scope';
import { releaseChangeTarget } from '../common/db/package-usage';
import { conflict, HttpError, notFound, unprocessable } from './errors';
import { dispatchPending } from '../notify/dispatch';
import { queueStateNotifications } from '../notify/etsi/op-state';

/** The op to start, and its precheck's plan (ops/operation.ts): checks and writes inside the op occ's transaction. */
export interface StartOperation extends StartPlan {
  /** Whose instance: the caller's project (the route found the instance with it). */
  scope: Scope;
  instanceId: string;
  operation: LcmOperation;
  params: Record<string, unknown>;
}

export async function startOperation(ctx: ApiContext, s: StartOperation): Promise<OpOccRow> {
  const { db, box } = ctx;
  const now = new Date().toISOString();
  // CPU work on request data happens here, before the write lock is taken (H1): the lock is held only for reads and writes.
  const operationParams = maskBySchema(requestSchemaOf(s.operation), s.params);
  const operationParamsSealed = box.sealJson(s.params);
  let op: OpOccRow;
  try {
    op = await createOpOcc(db, {
      scope: s.scope, instanceId: s.instanceId,
      row: {
        id: crypto.randomUUID(), operation: s.operation, operationState: 'STARTING',
        stateEnteredTime: now, startTime: now, isAutomaticInvocation: false,
        operationParams, operationParamsSealed,
        isCancelPending: false, workflowStarted: false,
      },
      withInstance: async (q, inst) => {
        s.precondition(inst);
        await s.write?.(q);
        return s.alsoWrite?.(inst);
      },
    });
  } catch (e) {
    if (e instanceof NoInstance) throw notFound(e.message);
    if (e instanceof OpenOperation) throw conflict(e.message);
    throw e;
  }
  try {
    await startWorkflow(ctx, op);
  } catch (e) {
    await deleteOpOcc(db, op.id);
    ctx.log.error({ err: { message: (e as Error).message } }, 'could not start the operation workflow');
    throw new HttpError(503, 'the workflow engine is unavailable; nothing was started, try again');
  }
  return op;
}

async function startWorkflow(ctx: ApiContext, op: OpOccRow): Promise<void> {
  const input: LcmOpInput = { opOccId: op.id, vnfInstanceId: op.vnfInstanceId, operation: op.operation as LcmOperation, heatPollMs: ctx.cfg.heatPollMs, heatPollMaxMs: ctx.cfg.heatPollMaxMs };
  const inst = await instanceById(ctx.db, op.vnfInstanceId);
  const described = describeOperation(op, inst);
  try {
    await ctx.temporal.workflow.start(VNF_LCM_OPERATIONS[input.operation].workflowType, {
      workflowId: op.id,
      taskQueue: ctx.cfg.taskQueue,
      args: [input],
      staticSummary: described.summary,
      staticDetails: described.details,
      typedSearchAttributes: [
        { key: SA_VNF_INSTANCE_ID, value: op.vnfInstanceId },
        { key: SA_LCM_OPERATION, value: op.operation },
        { key: SA_LCM_OPERATION_STATE, value: 'STARTING' },
      ],
    });
  } catch (e) {
    if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e;
  }
  await markWorkflowStarted(ctx.db, op.id);
}

/** At API start: start the workflows of op occs a crash left unstarted; settle those whose workflow ended without a final state. */
export async function reconcileOperations(ctx: ApiContext): Promise<number> {
  const orphans = await unstartedOpOccs(ctx.db);
  for (const op of orphans) await startWorkflow(ctx, op);
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
