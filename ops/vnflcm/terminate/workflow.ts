/**
 * TerminateVnf (SOL003 5.4.8):
 *   [GRACEFUL: wait gracefulTerminationTimeout] -> terminate_start hook
 *   -> delete stack -> wait DELETE_COMPLETE -> terminate_end hook
 *   -> instance NOT_INSTANTIATED.
 * Once the stack deletion has started the op cannot be rolled back.
 */
import { sleep } from '@temporalio/workflow';
import type { LcmOpInput } from '../../../engine/contracts';
import { runOperation } from '../../../engine/etsi-op-occ';
import type { Step } from '../../../workflow-steps/step';
import { acts, planReads } from '../../../workflow-steps/activities';
import { hookStep } from '../../../workflow-steps/hooks';
import { deleteStack } from '../../../workflow-steps/stack';

export async function terminate(input: LcmOpInput) {
  const { opOccId, vnfInstanceId } = input;
  // Planned inside the engine: the operator's handlers exist before the first await.
  return runOperation(input, async (): Promise<Step[]> => {
    const { hooks, gracefulTerminationTimeout } = await planReads().describeOperation({ opOccId });
    return [
      ...(gracefulTerminationTimeout
        ? [{ name: `graceful termination wait (${gracefulTerminationTimeout}s)`, run: () => sleep(gracefulTerminationTimeout * 1000) }]
        : []),
      ...hookStep(opOccId, hooks, 'terminate_start'),
      { name: 'delete stack', irreversible: true, run: () => deleteStack(vnfInstanceId, input) },
      ...hookStep(opOccId, hooks, 'terminate_end'),
      { name: 'record NOT_INSTANTIATED', run: () => acts.recordNotInstantiated({ opOccId }) },
    ];
  });
}
