/**
 * Recording an LCM operation and starting its workflow, by the API (a
 * request) and by the worker (auto-healing: a heal with
 * isAutomaticInvocation) alike. The op occ row is written first, in a
 * transaction that also enforces one operation per instance and runs the
 * precheck's plan; then the workflow with id = op occ id is started. When
 * the start fails the row goes again: nothing is left half written.
 */
import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Logger } from '../../common/log';
import type { Config } from '../../common/config';
import { instanceById } from '../../store/repos/instances';
import { createOpOcc, deleteOpOcc, markWorkflowStarted, type OpOccRow } from '../../store/repos/op-occs';
import type { Scope } from '../../store/repos/scope';
import type { Store } from '../../store/store';
import { SA_LCM_OPERATION, SA_LCM_OPERATION_STATE, SA_VNF_INSTANCE_ID } from '../../common/search-attributes';
import { activeTraceId, traceAttribute } from '../../common/tracing';
import type { SecretBox } from '../../common/secrets';
import { maskBySchema } from '../../common/secret-schema';
import type { LcmOpInput } from '../../engine/contracts';
import type { LcmOperation } from '../../model/lcm-operation';
import type { StartPlan } from '../operation';
import { requestSchemaOf, VNF_LCM_OPERATIONS } from '../registry';
import { describeOperation } from './summary';

export interface StartDeps { db: Store; box: SecretBox; cfg: Config; temporal: Client; log: Logger }

/** The op to start, and its precheck's plan (ops/operation.ts): checks and writes inside the op occ's transaction. */
export interface StartOperation extends StartPlan {
  /** Whose instance: the caller's project (the route found the instance with it). */
  scope: Scope;
  instanceId: string;
  operation: LcmOperation;
  params: Record<string, unknown>;
  /** Started by the system, not a request (ETSI isAutomaticInvocation): auto-healing. */
  automatic?: boolean;
}

/** The workflow engine refused the start: the op occ was removed again. */
export class WorkflowEngineUnavailable extends Error {}

/** Throws NoInstance / OpenOperation (nothing written) or WorkflowEngineUnavailable (nothing left). */
export async function recordAndStartOperation(deps: StartDeps, s: StartOperation): Promise<OpOccRow> {
  const now = new Date().toISOString();
  // CPU work on request data happens here, before the write lock is taken (H1): the lock is held only for reads and writes.
  const operationParams = maskBySchema(requestSchemaOf(s.operation), s.params);
  const operationParamsSealed = deps.box.sealJson(s.params);
  const op = await createOpOcc(deps.db, {
    scope: s.scope, instanceId: s.instanceId,
    row: {
      id: crypto.randomUUID(), operation: s.operation, operationState: 'STARTING',
      stateEnteredTime: now, startTime: now, isAutomaticInvocation: s.automatic === true,
      operationParams, operationParamsSealed,
      isCancelPending: false, workflowStarted: false, traceId: activeTraceId() ?? null,
    },
    withInstance: async (q, inst) => {
      s.precondition(inst);
      await s.write?.(q);
      return s.alsoWrite?.(inst);
    },
  });
  try {
    await startLcmWorkflow(deps, op);
  } catch (e) {
    await deleteOpOcc(deps.db, op.id);
    deps.log.error({ err: { message: (e as Error).message } }, 'could not start the operation workflow');
    throw new WorkflowEngineUnavailable((e as Error).message);
  }
  return op;
}

/** Starts the op occ's workflow (idempotent: its id is the op occ id) and marks it started. */
export async function startLcmWorkflow(deps: Pick<StartDeps, 'db' | 'cfg' | 'temporal'>, op: OpOccRow): Promise<void> {
  const input: LcmOpInput = { opOccId: op.id, vnfInstanceId: op.vnfInstanceId, operation: op.operation as LcmOperation, heatPollMs: deps.cfg.heatPollMs, heatPollMaxMs: deps.cfg.heatPollMaxMs };
  const inst = await instanceById(deps.db, op.vnfInstanceId);
  const described = describeOperation(op, inst);
  try {
    await deps.temporal.workflow.start(VNF_LCM_OPERATIONS[input.operation].workflowType, {
      workflowId: op.id,
      taskQueue: deps.cfg.taskQueue,
      args: [input],
      staticSummary: described.summary,
      staticDetails: described.details,
      typedSearchAttributes: [
        { key: SA_VNF_INSTANCE_ID, value: op.vnfInstanceId },
        { key: SA_LCM_OPERATION, value: op.operation },
        { key: SA_LCM_OPERATION_STATE, value: 'STARTING' },
        ...traceAttribute(),
      ],
    });
  } catch (e) {
    if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e;
  }
  await markWorkflowStarted(deps.db, op.id);
}
