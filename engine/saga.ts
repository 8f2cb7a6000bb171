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
import type { Step } from '../workflow-steps/step';

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
  const saga = new Saga(policy, Array.isArray(planned) ? planned : []);
  saga.registerHandlers(); // before the first await: a decision or cancel can arrive with the first task
  return saga.run(planned);
}

/** Everything a running saga knows, in one object that the steps of the engine below read and change. */
interface SagaState {
  plan: Step[];
  phase: Phase;
  /** The first failure (kept through an automatic rollback), or the last one of a parked saga. */
  failure?: ProblemDetails;
  direction: 'forward' | 'rollback';
  /** The next forward step. */
  cursor: number;
  started: Set<number>;
  compensated: Set<number>;
  /** The operator's decision on a parked saga, not yet acted on. */
  decision?: Decision;
  /** Decisions accepted so far, and acted on (the state they lead to is recorded): an update answers once its own is acted on. */
  decisionsTaken: number;
  decisionsActed: number;
  cancel?: CancelMode;
  /** The step running: its name, whether any cancel interrupts it, and its scope (a FORCEFUL cancel cancels it). */
  stepName?: string;
  stepInterruptible: boolean;
  stepScope?: CancellationScope;
  /** The planning running, if any (a cancel while starting cancels it). */
  planScope?: CancellationScope;
}

const CANCELLABLE: Phase[] = ['starting', 'running', 'rollingBack'];

class Saga {
  private readonly s: SagaState;

  constructor(private readonly policy: StatePolicy, plan: Step[]) {
    this.s = { plan, phase: 'starting', direction: 'forward', cursor: 0, started: new Set(), compensated: new Set(), decisionsTaken: 0, decisionsActed: 0, stepInterruptible: false };
  }

  status(): SagaStatus {
    const { phase, stepName: step, failure: error, direction, cancel } = this.s;
    return { phase, step, error, rollingBack: direction === 'rollback', cancel };
  }

  private label(p: Phase): string {
    return this.policy.label(p);
  }

  private async enter(next: Phase, error?: ProblemDetails): Promise<void> {
    this.s.phase = next;
    if (error) this.s.failure = error;
    await this.policy.enter(this.status());
  }

  /** The operator's query and updates: retry, rollback and fail of a parked saga, cancel of a running one. */
  registerHandlers(): void {
    setHandler(stateQuery, () => ({ state: this.label(this.s.phase), step: this.s.stepName }));
    setHandler(retryUpdate, () => this.decide('retry'), { validator: () => this.requireParked('retry') });
    setHandler(rollbackUpdate, () => this.decide('rollback'), {
      validator: () => {
        this.requireParked('rollback');
        const blocking = [...this.s.started].map((i) => this.s.plan[i]).find((step) => step.irreversible);
        if (blocking) throw ApplicationFailure.create({ type: UNPROCESSABLE, message: `cannot roll back: step "${blocking.name}" has started and cannot be undone; retry or fail instead` });
      },
    });
    setHandler(failUpdate, () => this.decide('fail'), { validator: () => this.requireParked('fail') });
    setHandler(cancelUpdate, (mode: CancelMode) => this.requestCancel(mode), { validator: (mode: CancelMode) => this.checkCancel(mode) });
  }

  /**
   * Update handlers return once the workflow has acted on them, so the API answers after the state moved.
   * Counted per decision, not per recorded state: the update can arrive while the parked state itself is still
   * being recorded, and that write must not be mistaken for the answer to the decision.
   */
  private async decide(d: Decision): Promise<void> {
    this.s.decision = d;
    const mine = ++this.s.decisionsTaken;
    await condition(() => this.s.decisionsActed >= mine);
  }

  private requireParked(task: string): void {
    if (this.s.phase !== 'parked') throw ApplicationFailure.create({ type: CONFLICT, message: `${task} needs ${this.label('parked')}; the operation is ${this.label(this.s.phase)}` });
    if (this.s.decision) throw ApplicationFailure.create({ type: CONFLICT, message: `${this.s.decision} already requested` });
  }

  private checkCancel(mode: CancelMode): void {
    if (mode !== 'GRACEFUL' && mode !== 'FORCEFUL') throw ApplicationFailure.create({ type: UNPROCESSABLE, message: `cancelMode must be GRACEFUL or FORCEFUL` });
    if (!CANCELLABLE.includes(this.s.phase)) throw ApplicationFailure.create({ type: CONFLICT, message: `cancel needs ${CANCELLABLE.map((p) => this.label(p)).join(', ').replace(/, ([^,]*)$/, ' or $1')}; the operation is ${this.label(this.s.phase)}` });
    if (this.s.cancel) throw ApplicationFailure.create({ type: CONFLICT, message: 'a cancel is already pending' });
  }

  private async requestCancel(mode: CancelMode): Promise<void> {
    this.s.cancel = mode;
    if (mode === 'FORCEFUL' || this.s.stepInterruptible) this.s.stepScope?.cancel();
    this.s.planScope?.cancel(); // nothing ran yet: stop planning (rolled back)
    if (this.s.phase === 'starting') return;
    await this.policy.cancelRequested(this.status());
  }

  /** Plans (when asked to), runs the steps, and after each park acts on the operator's decision, until the saga ends. */
  async run(planned: Plan): Promise<SagaStatus> {
    if (!Array.isArray(planned) && !(await this.planSteps(planned))) return this.status();
    if (this.s.cancel) {
      // Cancelled before anything ran (STARTING -> ROLLED_BACK, per ETSI).
      await this.enter('rolledBack');
      return this.status();
    }
    await this.enter('running');
    for (;;) {
      if (await this.runToEnd()) break; // completed, rolled back or failed
      if (await this.actOnDecision()) break; // the operator failed it
    }
    await condition(allHandlersFinished);
    return this.status();
  }

  /** Runs the steps in the saga's direction: true when it ended (completed, rolled back or failed), false when it parked. */
  private async runToEnd(): Promise<boolean> {
    for (;;) {
      try {
        if (this.s.direction === 'forward') {
          await this.forward();
          this.s.stepName = undefined;
          await this.enter('completed');
        } else {
          await this.rollback();
          this.s.stepName = undefined;
          await this.enter('rolledBack');
        }
        return true;
      } catch (err) {
        const problem = toProblem(err, this.s.stepName);
        if (this.policy.onFailure === 'rollback' && this.s.direction === 'forward') {
          this.s.direction = 'rollback';
          this.s.cancel = undefined;
          await this.enter('rollingBack', problem);
          continue;
        }
        if (this.policy.onFailure !== 'park') {
          await this.enter('failed', problem);
          return true;
        }
        await this.enter('parked', problem);
        return false;
      }
    }
  }

  /** The operator's decision on the parked saga: true when it ended the saga (fail), false when the steps go on. */
  private async actOnDecision(): Promise<boolean> {
    const d = await this.nextDecision();
    if (d === 'fail') {
      await this.enter('failed');
      this.s.decisionsActed++;
      return true;
    }
    if (d === 'rollback') this.s.direction = 'rollback';
    await this.enter(this.s.direction === 'forward' ? 'running' : 'rollingBack');
    this.s.decisionsActed++;
    return false;
  }

  /** Runs one step in its own scope so a FORCEFUL cancel can interrupt it. */
  private async runStep(step: Step, fn: () => Promise<void>): Promise<void> {
    if (this.s.cancel) throw new CancelledByOperator(`cancelled (${this.s.cancel}) before step "${step.name}"`);
    this.s.stepName = step.name;
    this.s.stepInterruptible = !!step.interruptible;
    await this.policy.stepStarted({ ...this.status(), cancel: undefined });
    const scope = new CancellationScope();
    this.s.stepScope = scope;
    try {
      await scope.run(fn);
    } catch (err) {
      if (this.s.cancel && isCancellation(err)) {
        if (step.abort) await CancellationScope.nonCancellable(() => step.abort!());
        throw new CancelledByOperator(`cancelled (${this.s.cancel}) during step "${step.name}"`);
      }
      throw err;
    } finally {
      this.s.stepScope = undefined;
      this.s.stepInterruptible = false;
    }
  }

  private async forward(): Promise<void> {
    const { plan } = this.s;
    for (; this.s.cursor < plan.length; this.s.cursor++) {
      const i = this.s.cursor;
      this.s.started.add(i);
      await this.runStep(plan[i], () => plan[i].run());
    }
  }

  private async rollback(): Promise<void> {
    for (const i of [...this.s.started].sort((a, b) => b - a)) {
      const step = this.s.plan[i];
      if (this.s.compensated.has(i) || !step.compensate) continue;
      await this.runStep({ ...step, name: `rollback: ${step.name}` }, () => step.compensate!());
      this.s.compensated.add(i);
    }
  }

  /** Waits for the operator's decision on a parked operation. */
  private async nextDecision(): Promise<Decision> {
    this.s.cancel = undefined;
    await condition(() => this.s.decision !== undefined);
    const d = this.s.decision!;
    this.s.decision = undefined;
    return d;
  }

  /**
   * Plans the steps. A failure is handled by the policy (parked: retry plans again, rollback has
   * nothing to undo, fail ends it); false when the op ended here.
   */
  private async planSteps(build: () => Promise<Step[]>): Promise<boolean> {
    for (;;) {
      try {
        const scope = new CancellationScope();
        this.s.planScope = scope;
        this.s.plan = await scope.run(build);
        return true;
      } catch (err) {
        if (this.s.cancel && isCancellation(err)) return true; // cancelled while starting: rolled back below
        if (!patched(PLANNING_FAILS_TEMP)) throw err;
        const problem = toProblem(err, PLANNING);
        if (this.policy.onFailure !== 'park') {
          await this.enter('failed', problem); // nothing ran: nothing to roll back
          return false;
        }
        await this.enter('parked', problem);
      } finally {
        this.s.planScope = undefined;
      }
      const d = await this.nextDecision();
      if (d === 'retry') {
        await this.enter('running');
        this.s.decisionsActed++;
        continue;
      }
      await this.enter(d === 'fail' ? 'failed' : 'rolledBack'); // nothing ran: nothing to roll back
      this.s.decisionsActed++;
      await condition(allHandlersFinished);
      return false;
    }
  }
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
