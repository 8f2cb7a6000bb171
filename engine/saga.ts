/**
 * The saga engine every operation runs on, VNF LCM and cluster alike.
 *
 * An operation is a list of steps, run in order. Each step may say how to
 * undo it (compensate), how to stop the VIM work it waits on (abort), and
 * whether it can be undone at all (irreversible). What a failure leads to,
 * and how each phase is shown and recorded, is the state policy's business
 * (engine/etsi-op-occ.ts: park in FAILED_TEMP for the operator;
 * engine/magnum-status.ts: *_FAILED, or an automatic rollback):
 *  - park:     wait for the operator: retry re-runs from the failed step
 *              (completed steps are not repeated), rollback runs the
 *              compensations of every started step in reverse, fail ends it;
 *  - rollback: run the compensations at once, then end rolled back (or
 *              failed, if a compensation fails);
 *  - fail:     end failed.
 * cancel (GRACEFUL: finish the running step, start no other; FORCEFUL: also
 * abort it) counts as a failure of the step it stopped.
 *
 * The steps may be planned by the engine itself (a function reading the
 * operation through activities): the operator's handlers are registered
 * before the first await, a cancel while starting stops the planning (rolled
 * back: nothing ran), and a planning failure is handled like a step's.
 */
import {
  ApplicationFailure, CancellationScope, condition, isCancellation, setHandler, allHandlersFinished, patched,
} from '@temporalio/workflow';
import type { ProblemDetails } from '../common/problem';
import { CONFLICT, UNPROCESSABLE, cancelUpdate, failUpdate, retryUpdate, rollbackUpdate, stateQuery } from './contracts';
import type { CancelMode } from '../model/lcm-operation';
import type { Step } from '../workflows/step';

/** Where a saga is. The policy names each phase for its API (STARTING, CREATE_IN_PROGRESS, ...). */
export type Phase = 'starting' | 'running' | 'parked' | 'rollingBack' | 'completed' | 'failed' | 'rolledBack';
export const FINAL_PHASES: readonly Phase[] = ['completed', 'failed', 'rolledBack'];

export interface SagaStatus {
  phase: Phase;
  /** The step running (or that stopped the operation). */
  step?: string;
  /** Why the operation failed: set from the first failure on, kept through an automatic rollback. */
  error?: ProblemDetails;
  /** A rollback was under way when this phase was entered (a failed rollback, for instance). */
  rollingBack: boolean;
  cancel?: CancelMode;
}

export interface StatePolicy {
  /** What a failure of a step (or of the planning) leads to. */
  readonly onFailure: 'park' | 'rollback' | 'fail';
  /** The phase as the API shows it (used in the state query and in refusals). */
  label(phase: Phase): string;
  /** Records a phase change. */
  enter(s: SagaStatus): Promise<void>;
  /** Records that a step starts. */
  stepStarted(s: SagaStatus): Promise<void>;
  /** Records an accepted cancel while a step runs. */
  cancelRequested(s: SagaStatus): Promise<void>;
}

type Decision = 'retry' | 'rollback' | 'fail';
class CancelledByOperator extends Error {}

/** The steps, or how to plan them (activities allowed; called again on retry after it failed). */
export type Plan = Step[] | (() => Promise<Step[]>);
/** Name shown for a failed planning. */
export const PLANNING = 'plan the operation';
/** Histories recorded before a planning failure was FAILED_TEMP (the workflow failed there) replay as they were. */
const PLANNING_FAILS_TEMP = 'planning-failure-fails-temp';

/** Runs the operation to its end; returns where it ended. */
export async function runSaga(policy: StatePolicy, planned: Plan): Promise<SagaStatus> {
  let plan: Step[] = Array.isArray(planned) ? planned : [];
  let planScope: CancellationScope | undefined;
  let phase: Phase = 'starting';
  let failure: ProblemDetails | undefined;
  let decisionsTaken = 0; // operator decisions accepted so far
  let decisionsActed = 0; // ... and acted on: the state they lead to is recorded
  let direction: 'forward' | 'rollback' = 'forward';
  let cursor = 0; // next forward step
  const started = new Set<number>();
  const compensated = new Set<number>();
  let decision: Decision | undefined;
  let cancel: CancelMode | undefined;
  let stepScope: CancellationScope | undefined;
  let stepName: string | undefined;
  let stepInterruptible = false;
  const status = (): SagaStatus => ({ phase, step: stepName, error: failure, rollingBack: direction === 'rollback', cancel });
  const label = (p: Phase) => policy.label(p);

  async function enter(next: Phase, error?: ProblemDetails): Promise<void> {
    phase = next;
    if (error) failure = error;
    await policy.enter(status());
  }
  /**
   * Update handlers return once the workflow has acted on them, so the API answers after the state moved.
   * Counted per decision, not per recorded state: the update can arrive while the parked state itself is still
   * being recorded, and that write must not be mistaken for the answer to the decision.
   */
  const decide = async (d: Decision) => {
    decision = d;
    const mine = ++decisionsTaken;
    await condition(() => decisionsActed >= mine);
  };

  const requireParked = (task: string) => {
    if (phase !== 'parked') throw ApplicationFailure.create({ type: CONFLICT, message: `${task} needs ${label('parked')}; the operation is ${label(phase)}` });
    if (decision) throw ApplicationFailure.create({ type: CONFLICT, message: `${decision} already requested` });
  };
  const cancellable: Phase[] = ['starting', 'running', 'rollingBack'];
  setHandler(stateQuery, () => ({ state: label(phase), step: stepName }));
  setHandler(retryUpdate, () => decide('retry'), { validator: () => requireParked('retry') });
  setHandler(rollbackUpdate, () => decide('rollback'), {
    validator: () => {
      requireParked('rollback');
      const blocking = [...started].map((i) => plan[i]).find((s) => s.irreversible);
      if (blocking) throw ApplicationFailure.create({ type: UNPROCESSABLE, message: `cannot roll back: step "${blocking.name}" has started and cannot be undone; retry or fail instead` });
    },
  });
  setHandler(failUpdate, () => decide('fail'), { validator: () => requireParked('fail') });
  setHandler(cancelUpdate, async (mode: CancelMode) => {
    cancel = mode;
    if (mode === 'FORCEFUL' || stepInterruptible) stepScope?.cancel();
    planScope?.cancel(); // nothing ran yet: stop planning (rolled back)
    if (phase === 'starting') return;
    await policy.cancelRequested(status());
  }, {
    validator: (mode: CancelMode) => {
      if (mode !== 'GRACEFUL' && mode !== 'FORCEFUL') throw ApplicationFailure.create({ type: UNPROCESSABLE, message: `cancelMode must be GRACEFUL or FORCEFUL` });
      if (!cancellable.includes(phase)) throw ApplicationFailure.create({ type: CONFLICT, message: `cancel needs ${cancellable.map(label).join(', ').replace(/, ([^,]*)$/, ' or $1')}; the operation is ${label(phase)}` });
      if (cancel) throw ApplicationFailure.create({ type: CONFLICT, message: 'a cancel is already pending' });
    },
  });

  /** Runs one step in its own scope so a FORCEFUL cancel can interrupt it. */
  async function runStep(step: Step, fn: () => Promise<void>): Promise<void> {
    if (cancel) throw new CancelledByOperator(`cancelled (${cancel}) before step "${step.name}"`);
    stepName = step.name;
    stepInterruptible = !!step.interruptible;
    await policy.stepStarted({ ...status(), cancel: undefined });
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

  /** Waits for the operator's decision on a parked operation. */
  async function nextDecision(): Promise<Decision> {
    cancel = undefined;
    await condition(() => decision !== undefined);
    const d = decision!;
    decision = undefined;
    return d;
  }

  /**
   * Plans the steps. A failure is handled by the policy (parked: retry plans again, rollback has
   * nothing to undo, fail ends it); false when the op ended here.
   */
  async function planSteps(build: () => Promise<Step[]>): Promise<boolean> {
    for (;;) {
      try {
        planScope = new CancellationScope();
        plan = await planScope.run(build);
        return true;
      } catch (err) {
        if (cancel && isCancellation(err)) return true; // cancelled while starting: rolled back below
        if (!patched(PLANNING_FAILS_TEMP)) throw err;
        const problem = toProblem(err, PLANNING);
        if (policy.onFailure !== 'park') {
          await enter('failed', problem); // nothing ran: nothing to roll back
          return false;
        }
        await enter('parked', problem);
      } finally {
        planScope = undefined;
      }
      const d = await nextDecision();
      if (d === 'retry') {
        await enter('running');
        decisionsActed++;
        continue;
      }
      await enter(d === 'fail' ? 'failed' : 'rolledBack'); // nothing ran: nothing to roll back
      decisionsActed++;
      await condition(allHandlersFinished);
      return false;
    }
  }

  if (!Array.isArray(planned) && !(await planSteps(planned))) return status();
  if (cancel) {
    // Cancelled before anything ran (STARTING -> ROLLED_BACK, per ETSI).
    await enter('rolledBack');
    return status();
  }
  await enter('running');
  for (;;) {
    try {
      if (direction === 'forward') {
        await forward();
        stepName = undefined;
        await enter('completed');
      } else {
        await rollback();
        stepName = undefined;
        await enter('rolledBack');
      }
      break;
    } catch (err) {
      const problem = toProblem(err, stepName);
      if (policy.onFailure === 'rollback' && direction === 'forward') {
        direction = 'rollback';
        cancel = undefined;
        await enter('rollingBack', problem);
        continue;
      }
      if (policy.onFailure !== 'park') {
        await enter('failed', problem);
        break;
      }
      await enter('parked', problem);
    }
    const d = await nextDecision();
    if (d === 'fail') {
      await enter('failed');
      decisionsActed++;
      break;
    }
    if (d === 'rollback') direction = 'rollback';
    await enter(direction === 'forward' ? 'running' : 'rollingBack');
    decisionsActed++;
  }
  await condition(allHandlersFinished);
  return status();
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
