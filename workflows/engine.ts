/**
 * The operation engine every LCM workflow runs on (ETSI op occ states).
 *
 * An operation is a list of steps. Steps run in order; the first that fails
 * puts the op in FAILED_TEMP and the workflow waits for the operator:
 *  - retry    re-runs from the failed step (completed steps are not repeated);
 *  - rollback runs the compensations of every started step in reverse;
 *  - fail     ends the op FAILED.
 * cancel (GRACEFUL: finish the running step, start no other; FORCEFUL: also
 * abort it) ends in FAILED_TEMP, from where the same three tasks apply.
 *
 * The steps may be planned by the engine itself (a function reading the op
 * through activities): the operator's handlers are then already registered
 * while it plans, a cancel in STARTING stops the planning (ROLLED_BACK), and
 * a planning failure is FAILED_TEMP like a step's, never an op left STARTING.
 */
import {
  ApplicationFailure, CancellationScope, condition, isCancellation, setHandler,
  upsertSearchAttributes, allHandlersFinished, patched,
} from '@temporalio/workflow';
import type { ProblemDetails } from '../common/problem';
import { db } from './activities';
import { SA_LCM_OPERATION_STATE } from '../common/search-attributes';
import {
  CancelMode, CONFLICT, LcmOpInput, OpState, UNPROCESSABLE,
  cancelUpdate, failUpdate, retryUpdate, rollbackUpdate, stateQuery,
} from './definitions';

export interface Step {
  name: string;
  run(): Promise<void>;
  /** Undo what run() may have done, even partly; must be idempotent. */
  compensate?(): Promise<void>;
  /** Stop the VIM operation run() is waiting on (FORCEFUL cancel). */
  abort?(): Promise<void>;
  /** Once started, the op can no longer be rolled back (e.g. stack deletion). */
  irreversible?: boolean;
  /** Any cancel interrupts it, GRACEFUL too (long external waits such as coordinations). */
  interruptible?: boolean;
}


type Decision = 'retry' | 'rollback' | 'fail';
class CancelledByOperator extends Error {}

/** The steps, or how to plan them (activities allowed; called again on retry after it failed). */
export type Plan = Step[] | (() => Promise<Step[]>);
/** Name shown for a failed planning. */
export const PLANNING = 'plan the operation';
/** Histories recorded before a planning failure was FAILED_TEMP (the workflow failed there) replay as they were. */
const PLANNING_FAILS_TEMP = 'planning-failure-fails-temp';

export async function runOperation(input: LcmOpInput, planned: Plan): Promise<OpState> {
  let plan: Step[] = Array.isArray(planned) ? planned : [];
  let planScope: CancellationScope | undefined;
  let state: OpState = 'STARTING';
  let decisionsTaken = 0; // operator decisions accepted so far
  let decisionsActed = 0; // ... and acted on: the state they lead to is recorded
  let phase: 'forward' | 'rollback' = 'forward';
  let cursor = 0; // next forward step
  const started = new Set<number>();
  const compensated = new Set<number>();
  let decision: Decision | undefined;
  let cancel: CancelMode | undefined;
  let stepScope: CancellationScope | undefined;
  let stepName: string | undefined;
  let stepInterruptible = false;

  async function enter(next: OpState, error?: ProblemDetails): Promise<void> {
    state = next;
    upsertSearchAttributes([{ key: SA_LCM_OPERATION_STATE, value: next }]);
    await db.recordOpState({
      // currentStep keeps the last progress shown (FAILED_TEMP tells where it stopped); final states clear it
      opOccId: input.opOccId, state: next, error, currentStep: isFinal(next) ? null : undefined,
      isCancelPending: cancel !== undefined && next !== 'FAILED_TEMP' && !isFinal(next), cancelMode: cancel ?? null,
    });
  }
  /**
   * Update handlers return once the workflow has acted on them, so the API answers after the state moved.
   * Counted per decision, not per recorded state: the update can arrive while FAILED_TEMP itself is still
   * being recorded, and that write must not be mistaken for the answer to the decision.
   */
  const decide = async (d: Decision) => {
    decision = d;
    const mine = ++decisionsTaken;
    await condition(() => decisionsActed >= mine);
  };

  const requireFailedTemp = (task: string) => {
    if (state !== 'FAILED_TEMP') throw ApplicationFailure.create({ type: CONFLICT, message: `${task} needs FAILED_TEMP; the operation is ${state}` });
    if (decision) throw ApplicationFailure.create({ type: CONFLICT, message: `${decision} already requested` });
  };
  setHandler(stateQuery, () => ({ state, step: stepName }));
  setHandler(retryUpdate, () => decide('retry'), { validator: () => requireFailedTemp('retry') });
  setHandler(rollbackUpdate, () => decide('rollback'), {
    validator: () => {
      requireFailedTemp('rollback');
      const blocking = [...started].map((i) => plan[i]).find((s) => s.irreversible);
      if (blocking) throw ApplicationFailure.create({ type: UNPROCESSABLE, message: `cannot roll back: step "${blocking.name}" has started and cannot be undone; retry or fail instead` });
    },
  });
  setHandler(failUpdate, () => decide('fail'), { validator: () => requireFailedTemp('fail') });
  setHandler(cancelUpdate, async (mode: CancelMode) => {
    cancel = mode;
    if (mode === 'FORCEFUL' || stepInterruptible) stepScope?.cancel();
    planScope?.cancel(); // nothing ran yet: stop planning (ROLLED_BACK)
    if (state === 'STARTING') return;
    await db.recordOpState({ opOccId: input.opOccId, state, currentStep: stepName ?? null, isCancelPending: true, cancelMode: mode });
  }, {
    validator: (mode: CancelMode) => {
      if (mode !== 'GRACEFUL' && mode !== 'FORCEFUL') throw ApplicationFailure.create({ type: UNPROCESSABLE, message: `cancelMode must be GRACEFUL or FORCEFUL` });
      if (!['STARTING', 'PROCESSING', 'ROLLING_BACK'].includes(state)) throw ApplicationFailure.create({ type: CONFLICT, message: `cancel needs STARTING, PROCESSING or ROLLING_BACK; the operation is ${state}` });
      if (cancel) throw ApplicationFailure.create({ type: CONFLICT, message: 'a cancel is already pending' });
    },
  });

  /** Runs one step in its own scope so a FORCEFUL cancel can interrupt it. */
  async function runStep(step: Step, fn: () => Promise<void>): Promise<void> {
    if (cancel) throw new CancelledByOperator(`cancelled (${cancel}) before step "${step.name}"`);
    stepName = step.name;
    stepInterruptible = !!step.interruptible;
    await db.recordOpState({ opOccId: input.opOccId, state, currentStep: step.name, isCancelPending: false, cancelMode: null });
    stepScope = new CancellationScope();
    try {
      await stepScope.run(fn);
    } catch (err) {
      if (cancel && isCancellation(err)) {
        if (step.abort) await CancellationScope.nonCancellable(() => step.abort!());
        throw new CancelledByOperator(`cancelled (${cancel}) during step "${step.name}"`);
      }
      throw err;
    } finally {
      stepScope = undefined;
      stepInterruptible = false;
    }
  }

  async function forward(): Promise<void> {
    for (; cursor < plan.length; cursor++) {
      started.add(cursor);
      await runStep(plan[cursor], () => plan[cursor].run());
    }
  }

  async function rollback(): Promise<void> {
    for (const i of [...started].sort((a, b) => b - a)) {
      const step = plan[i];
      if (compensated.has(i) || !step.compensate) continue;
      await runStep({ ...step, name: `rollback: ${step.name}` }, () => step.compensate!());
      compensated.add(i);
    }
  }

  /**
   * Plans the steps. A failure is the operator's (FAILED_TEMP; retry plans again, rollback has
   * nothing to undo, fail ends it); false when the op ended here.
   */
  async function planSteps(build: () => Promise<Step[]>): Promise<boolean> {
    for (;;) {
      try {
        planScope = new CancellationScope();
        plan = await planScope.run(build);
        return true;
      } catch (err) {
        if (cancel && isCancellation(err)) return true; // cancelled in STARTING: ROLLED_BACK below
        if (!patched(PLANNING_FAILS_TEMP)) throw err;
        await enter('FAILED_TEMP', toProblem(err, PLANNING));
      } finally {
        planScope = undefined;
      }
      cancel = undefined;
      await condition(() => decision !== undefined);
      const d = decision!;
      decision = undefined;
      if (d === 'retry') {
        await enter('PROCESSING');
        decisionsActed++;
        continue;
      }
      await enter(d === 'fail' ? 'FAILED' : 'ROLLED_BACK'); // nothing ran: nothing to roll back
      decisionsActed++;
      await condition(allHandlersFinished);
      return false;
    }
  }

  if (!Array.isArray(planned) && !(await planSteps(planned))) return state;
  if (cancel) {
    // Cancelled before anything ran (STARTING -> ROLLED_BACK, per ETSI).
    await enter('ROLLED_BACK');
    return state;
  }
  await enter('PROCESSING');
  for (;;) {
    try {
      if (phase === 'forward') {
        await forward();
        stepName = undefined;
        await enter('COMPLETED');
      } else {
        await rollback();
        stepName = undefined;
        await enter('ROLLED_BACK');
      }
      break;
    } catch (err) {
      await enter('FAILED_TEMP', toProblem(err, stepName));
    }
    cancel = undefined;
    await condition(() => decision !== undefined);
    const d = decision!;
    decision = undefined;
    if (d === 'fail') {
      await enter('FAILED');
      decisionsActed++;
      break;
    }
    if (d === 'rollback') phase = 'rollback';
    await enter(phase === 'forward' ? 'PROCESSING' : 'ROLLING_BACK');
    decisionsActed++;
  }
  await condition(allHandlersFinished);
  return state;
}

function isFinal(s: OpState): boolean {
  return s === 'COMPLETED' || s === 'FAILED' || s === 'ROLLED_BACK';
}

/** ProblemDetails naming the failed step and the root cause. */
export function toProblem(err: unknown, step: string | undefined): ProblemDetails {
  if (err instanceof CancelledByOperator) {
    return { title: 'Operation cancelled', status: 409, detail: err.message };
  }
  let cause: unknown = err;
  while (cause && typeof cause === 'object' && 'cause' in cause && (cause as { cause?: unknown }).cause) cause = (cause as { cause: unknown }).cause;
  const message = cause instanceof Error ? cause.message : String(cause);
  const type = cause instanceof ApplicationFailure && cause.type ? cause.type : 'Error';
  return {
    type: `urn:nfv-orchestrator:error:${type}`,
    title: step ? `Step "${step}" failed` : 'Operation failed',
    status: 500,
    detail: step ? `Step "${step}" failed: ${message}` : message,
  };
}
