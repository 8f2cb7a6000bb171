/** Op occ bookkeeping: the workflow's state changes land in the database the API reads. */
import { Context } from '@temporalio/activity';
import type { z } from 'zod';
import { recordStep, updateOpOccWith } from '../store/repos/op-occs';
import { countOperationEnd } from '../common/metrics';
import { dispatchPending } from '../notify/dispatch';
import { queueStateNotifications } from '../notify/etsi/op-state';
import type { ProblemDetails } from '../common/problem';
import { FINAL_STATES, type CancelMode, type OpState } from '../model/lcm-operation';
import { releaseChangeTarget } from '../store/package-usage';
import type { LcmHook } from '../model/vnfd';
import type { ActivityDeps } from './deps';
import { opContext } from './op-context';
import { loadOpOcc, opParams } from './records';
import { maskOpError } from '../common/secret-errors';

/** An operation's request schema (ops/registry.ts, given by the worker), to mask its request's secrets in the errors an op occ shows. */
export type RequestSchemaOf = (operation: string) => z.ZodType | undefined;

export interface RollingProgress { moved?: number; coordinated?: number; rolledBack?: number }

export interface RecordOpStateArgs {
  opOccId: string;
  state: OpState;
  error?: ProblemDetails;
  /** undefined = leave as it is. */
  currentStep?: string | null;
  isCancelPending: boolean;
  cancelMode: CancelMode | null;
}

export function opStateActivities({ db, box, cfg }: ActivityDeps, requestSchemaOf: RequestSchemaOf) {
  return {
    async recordOpState(a: RecordOpStateArgs): Promise<void> {
      const op = await loadOpOcc(db, a.opOccId);
      const changed = op.operationState !== a.state;
      await updateOpOccWith(db, a.opOccId, {
        operationState: a.state,
        ...(changed ? { stateEnteredTime: new Date().toISOString() } : {}),
        // The error stays visible until the op moves on from FAILED_TEMP/FAILED.
        ...(a.error ? { error: maskOpError(a.error, requestSchemaOf(op.operation), opParams(box, op)) } : a.state === 'PROCESSING' || a.state === 'ROLLING_BACK' || a.state === 'COMPLETED' || a.state === 'ROLLED_BACK' ? { error: null } : {}),
        ...(a.currentStep !== undefined ? { currentStep: a.currentStep } : {}),
        isCancelPending: a.isCancelPending,
        cancelMode: a.cancelMode,
        workflowStarted: true,
      }, (q, row) => queueStateNotifications(q, cfg.apiBaseUrl, row, a.state));
      // after the commit: wake the deliveries (also those a crash before this point left unsignalled)
      await dispatchPending(Context.current().client, cfg.taskQueue, db, [op.vnfInstanceId]);
      const final = FINAL_STATES.includes(a.state);
      // A change_vnfpkg's target was held IN_USE while the op ran (re-run on a retried write: idempotent).
      if (final) await releaseChangeTarget(db, a.opOccId);
      // counted once: a retried write finds the state already there
      if (changed && (final || a.state === 'FAILED_TEMP')) countOperationEnd({ api: 'etsi', operation: op.operation, state: a.state, final, startedAt: op.startTime });
    },

    /** Progress inside a step (e.g. which VNFC a rolling update is on), shown as currentStep; optionally the rolling counters. */
    async recordStep({ opOccId, step, rolling }: { opOccId: string; step: string; rolling?: RollingProgress }): Promise<void> {
      await recordStep(db, opOccId, step, rolling);
    },

    async rollingProgress({ opOccId }: { opOccId: string }): Promise<Required<RollingProgress>> {
      const p = (await loadOpOcc(db, opOccId)).rollingProgress ?? {};
      return { moved: p.moved ?? 0, coordinated: p.coordinated ?? 0, rolledBack: p.rolledBack ?? 0 };
    },

    /** What the workflow needs to lay out its steps (no secrets). */
    async describeOperation({ opOccId }: { opOccId: string }): Promise<{ hooks: LcmHook[]; gracefulTerminationTimeout?: number; vnfcInstanceIds?: string[] }> {
      const ctx = await opContext({ db, box }, opOccId);
      const params = ctx.params<{ terminationType?: string; gracefulTerminationTimeout?: number; vnfcInstanceId?: string | string[] }>();
      const flavour = await ctx.flavour();
      const hooks = Object.keys(flavour?.hooks ?? {}) as LcmHook[];
      const graceful = params.terminationType === 'GRACEFUL' ? params.gracefulTerminationTimeout ?? 0 : 0;
      const vnfcInstanceIds = params.vnfcInstanceId === undefined ? undefined : ([] as string[]).concat(params.vnfcInstanceId);
      return { hooks, gracefulTerminationTimeout: graceful || undefined, vnfcInstanceIds };
    },
  };
}
