/**
 * The ETSI op occ state policy (SOL003 5.6.2.2): STARTING -> PROCESSING ->
 * COMPLETED, and any failure parks the op in FAILED_TEMP for the operator
 * (retry, rollback, fail; cancel while running). Every state is recorded on
 * the op occ row and in the LcmOperationState search attribute.
 */
import { upsertSearchAttributes } from '@temporalio/workflow';
import { SA_LCM_OPERATION_STATE } from '../common/search-attributes';
import { bookkeeping } from '../workflow-steps/activities';
import type { LcmOpInput } from './contracts';
import type { OpState } from '../model/lcm-operation';
import { FINAL_PHASES, runSaga, type Phase, type Plan, type SagaStatus, type StatePolicy } from './saga';

const STATE: Record<Phase, OpState> = {
  starting: 'STARTING', running: 'PROCESSING', parked: 'FAILED_TEMP', rollingBack: 'ROLLING_BACK',
  completed: 'COMPLETED', failed: 'FAILED', rolledBack: 'ROLLED_BACK',
};

export function etsiOpOccPolicy(opOccId: string): StatePolicy {
  return {
    onFailure: 'park',
    label: (p) => STATE[p],
    async enter(s: SagaStatus) {
      const final = FINAL_PHASES.includes(s.phase);
      upsertSearchAttributes([{ key: SA_LCM_OPERATION_STATE, value: STATE[s.phase] }]);
      await bookkeeping().recordOpState({
        // currentStep keeps the last progress shown (FAILED_TEMP tells where it stopped); final states clear it
        opOccId, state: STATE[s.phase], error: s.phase === 'parked' ? s.error : undefined, currentStep: final ? null : undefined,
        isCancelPending: s.cancel !== undefined && s.phase !== 'parked' && !final, cancelMode: s.cancel ?? null,
      });
    },
    async stepStarted(s: SagaStatus) {
      await bookkeeping().recordOpState({ opOccId, state: STATE[s.phase], currentStep: s.step, isCancelPending: false, cancelMode: null });
    },
    async cancelRequested(s: SagaStatus) {
      await bookkeeping().recordOpState({ opOccId, state: STATE[s.phase], currentStep: s.step ?? null, isCancelPending: true, cancelMode: s.cancel ?? null });
    },
  };
}

/** Runs a VNF LCM operation on its op occ; returns the final op state. */
export async function runOperation(input: LcmOpInput, plan: Plan): Promise<OpState> {
  const policy = etsiOpOccPolicy(input.opOccId);
  return STATE[(await runSaga(policy, plan)).phase];
}
