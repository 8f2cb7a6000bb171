/**
 * InstantiateVnf (SOL003 5.4.4):
 *   instantiate_start hook -> create stack vnf-<id> -> wait CREATE_COMPLETE
 *   -> build instantiatedVnfInfo from the stack -> instantiate_end hook.
 * Rollback deletes the stack and returns the instance to NOT_INSTANTIATED.
 */
import type { LcmHook } from '../../../model/vnfd';
import type { LcmOpInput } from '../../../engine/contracts';
import { runOperation } from '../../../engine/etsi-op-occ';
import type { Step } from '../../../workflow-steps/step';
import { acts, planReads } from '../../../workflow-steps/activities';
import { hookStep } from '../../../workflow-steps/hooks';
import { createStack, deleteStack } from '../../../workflow-steps/stack';

export async function instantiate(input: LcmOpInput) {
  const { opOccId } = input;
  // Planned inside the engine: the operator's handlers exist before the first await.
  return runOperation(input, async () => {
    const { hooks } = await planReads().describeOperation({ opOccId });
    return steps(input, hooks);
  });
}

function steps(input: LcmOpInput, hooks: LcmHook[]): Step[] {
  const { opOccId, vnfInstanceId } = input;
  return [
    ...hookStep(opOccId, hooks, 'instantiate_start'),
    {
      name: 'create stack',
      run: () => createStack(opOccId, vnfInstanceId, input),
      abort: () => acts.abortStack({ vnfInstanceId }),
      compensate: () => deleteStack(vnfInstanceId, input),
    },
    {
      name: 'record instantiatedVnfInfo',
      run: async () => { await acts.recordVnfInfo({ opOccId }); },
      compensate: () => acts.recordNotInstantiated({ opOccId }),
    },
    ...hookStep(opOccId, hooks, 'instantiate_end'),
  ];
}
