/**
 * Starting a Magnum operation: the cluster row and the workflow are one
 * unit, as for op occs. The row is written first (its status, the
 * operation, the workflow id that alone may record statuses, in one
 * transaction that also checks the status allows it), then the workflow of
 * the operation's type is started; reconcileMagnumOperations() starts any a
 * crash left unstarted and settles any whose workflow ended without a final
 * status, so no cluster sits IN_PROGRESS with nothing running.
 */
import { WorkflowNotFoundError } from '@temporalio/common';
import {
  beginOperation, magnumClusterById, magnumClusters, markWorkflowStarted, Refused, unstartedOperations, writeFenced,
  type BeginOperation, type MagnumClusterRow,
} from '../../store/repos/magnum/clusters';
import { HttpError } from '../../common/http-error';
import { activeTraceId } from '../../common/tracing';
import { isInProgress, type ClusterStatus } from '../../model/magnum/status';
import { newOperationId, startMagnumOperationWorkflow } from '../../ops/magnum/start';
import type { MagnumOperation } from '../../ops/registry';
import type { ApiContext } from '../context';
import { eq } from 'drizzle-orm';

/** Records the operation (or refuses it: nothing written), then starts its workflow. */
export async function startMagnumOperation(ctx: ApiContext, clusterId: string, b: Omit<BeginOperation, 'operationId' | 'operation'> & { operation: MagnumOperation }): Promise<MagnumClusterRow> {
  let row: MagnumClusterRow;
  try {
    row = await beginOperation(ctx.db, clusterId, { ...b, operationId: newOperationId(b.operation), traceId: activeTraceId() });
  } catch (e) {
    if (e instanceof Refused) throw new HttpError(e.status, e.message);
    throw e;
  }
  await startMagnumWorkflow(ctx, row);
  return row;
}

/** Starts the workflow the row names (idempotent: its id is the operation id). */
export async function startMagnumWorkflow(ctx: ApiContext, row: MagnumClusterRow): Promise<void> {
  try {
    await startMagnumOperationWorkflow(ctx.temporal, ctx.cfg, row);
  } catch (e) {
    ctx.log.error({ err: { message: (e as Error).message }, clusterId: row.id }, 'could not start the Magnum operation workflow');
    await settle(ctx, row, 'the operation could not be started: the workflow engine is unavailable; try again');
    throw new HttpError(503, 'The workflow engine is unavailable; the operation was not started. Try again.');
  }
  await markWorkflowStarted(ctx.db, row.id, row.operationId);
}

/** Ends the operation's IN_PROGRESS status as *_FAILED with the reason (fenced: only if it is still the cluster's operation). */
async function settle(ctx: ApiContext, row: MagnumClusterRow, reason: string): Promise<void> {
  const failed = row.status.replace(/_IN_PROGRESS$/, '_FAILED') as ClusterStatus;
  await writeFenced(ctx.db, row.id, row.operationId, async ({ db, t }, c) => {
    if (!isInProgress(c.status)) return;
    await db.update(t.magnumClusters).set({ status: failed, statusReason: reason, workflowStarted: true, updatedAt: new Date().toISOString() }).where(eq(t.magnumClusters.id, row.id));
    for (const id of c.opNodegroups) {
      await db.update(t.magnumNodegroups).set({ status: failed, statusReason: reason }).where(eq(t.magnumNodegroups.id, id));
    }
  });
}

/** A delete supersedes what ran: the old operation's workflow is stopped (its late writes are fenced off anyway). */
export async function stopOperation(ctx: ApiContext, operationId: string): Promise<void> {
  try {
    await ctx.temporal.workflow.getHandle(operationId).terminate('superseded by a cluster delete');
  } catch (e) {
    if (!(e instanceof WorkflowNotFoundError) && !/already completed|not found/i.test(String((e as Error).message))) throw e;
  }
}

/** At API start: operations a crash left unstarted are started; IN_PROGRESS ones whose workflow has ended are failed with the reason. */
export async function reconcileMagnumOperations(ctx: ApiContext): Promise<number> {
  const orphans = await unstartedOperations(ctx.db);
  for (const row of orphans) await startMagnumWorkflow(ctx, row);
  for (const row of (await magnumClusters(ctx.db, { projectId: '', all: true })).filter((r) => isInProgress(r.status) && r.workflowStarted)) {
    let status: string;
    try {
      status = (await ctx.temporal.workflow.getHandle(row.operationId).describe()).status.name;
    } catch (e) {
      if (!(e instanceof WorkflowNotFoundError)) throw e;
      status = 'NOT_FOUND';
    }
    if (status === 'RUNNING') continue;
    const fresh = await magnumClusterById(ctx.db, row.id);
    if (fresh) await settle(ctx, fresh, `the workflow of this operation ended (${status}) without a final status; marked failed`);
  }
  return orphans.length;
}
