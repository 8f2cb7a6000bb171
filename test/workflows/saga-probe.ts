/**
 * The saga engine alone (test/component/saga-decisions.test.ts): steps,
 * compensations, aborts, the planning and the state policy are each one
 * activity of the test, which scripts what fails, what hangs and records
 * what ran. The policy names each phase as the engine does.
 */
import { proxyActivities } from '@temporalio/workflow';
import { runSaga, type SagaStatus, type StatePolicy } from '../../engine/saga';
import type { Step } from '../../workflow-steps/step';

export interface SagaProbeInput {
  onFailure: StatePolicy['onFailure'];
  /** The steps by name; with `planned`, the planning activity returns them instead. */
  steps: string[];
  planned?: boolean;
  irreversible?: string[];
  interruptible?: string[];
}

export interface SagaProbeActivities {
  probePlan(): Promise<string[]>;
  probeRun(step: string): Promise<void>;
  probeCompensate(step: string): Promise<void>;
  probeAbort(step: string): Promise<void>;
  probeEnter(phase: string, error: string | null, rollingBack: boolean): Promise<void>;
  probeStepStarted(step: string): Promise<void>;
  probeCancelRequested(mode: string): Promise<void>;
}

const acts = proxyActivities<SagaProbeActivities>({ startToCloseTimeout: '1 minute', heartbeatTimeout: '2 seconds', retry: { maximumAttempts: 1 } });

export async function sagaProbe(input: SagaProbeInput): Promise<SagaStatus> {
  const policy: StatePolicy = {
    onFailure: input.onFailure,
    label: (p) => p,
    enter: (s) => acts.probeEnter(s.phase, s.error?.detail ?? null, s.rollingBack),
    stepStarted: (s) => acts.probeStepStarted(s.step ?? ''),
    cancelRequested: (s) => acts.probeCancelRequested(s.cancel ?? ''),
  };
  const steps = (names: string[]): Step[] => names.map((name) => ({
    name,
    irreversible: input.irreversible?.includes(name),
    interruptible: input.interruptible?.includes(name),
    run: () => acts.probeRun(name),
    compensate: () => acts.probeCompensate(name),
    abort: () => acts.probeAbort(name),
  }));
  return runSaga(policy, input.planned ? async () => steps(await acts.probePlan()) : steps(input.steps));
}
