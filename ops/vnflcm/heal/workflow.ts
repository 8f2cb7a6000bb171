/**
 * HealVnf.
 * SOL002, with vnfcInstanceId (heal those VNFCs):
 *   heal_start hook -> mark their servers/volumes unhealthy -> stack update
 *   -> wait UPDATE_COMPLETE -> rebuild instantiatedVnfInfo -> heal_end hook on them.
 * SOL003, without (heal the whole VNF):
 *   heal_start hook -> delete stack -> wait -> create it again (same name, new id)
 *   -> wait CREATE_COMPLETE -> rebuild instantiatedVnfInfo -> heal_end hook on all.
 * The stack id is saved the moment Heat returns it, so a failed heal never
 * loses track of the stack: retry and terminate keep working.
 */
import type { LcmHook } from '../../../model/vnfd';
import type { LcmOpInput } from '../../../engine/contracts';
import { runOperation } from '../../../engine/etsi-op-occ';
import type { Step } from '../../../workflow-steps/step';
import { acts, planReads } from '../../../workflow-steps/activities';
import { hookStep } from '../../../workflow-steps/hooks';
import { createStack, deleteStack, sent, waitForStack } from '../../../workflow-steps/stack';

export async function heal(input: LcmOpInput) {
  // Planned inside the engine: the operator's handlers exist before the first await.
  return runOperation(input, async () => {
    const { hooks, vnfcInstanceIds } = await planReads().describeOperation({ opOccId: input.opOccId });
    return steps(input, hooks, vnfcInstanceIds);
  });
}

function steps(input: LcmOpInput, hooks: LcmHook[], vnfcInstanceIds?: string[]): Step[] {
  const { opOccId, vnfInstanceId } = input;
  let healed: string[] = [];
  const whole = !vnfcInstanceIds?.length;
  const resourceSteps: Step[] = whole
    ? [
      { name: 'delete stack', irreversible: true, run: () => deleteStack(vnfInstanceId, input) },
      { name: 'create stack', run: () => createStack(opOccId, vnfInstanceId, input), abort: () => acts.abortStack({ vnfInstanceId }) },
    ]
    : [
      { name: 'mark VNFCs unhealthy', run: () => acts.markUnhealthy({ opOccId }) },
      {
        name: 'update stack', irreversible: true,
        run: async () => waitForStack(vnfInstanceId, 'UPDATE', input, await sent(() => acts.updateStack({ opOccId }))),
        abort: () => acts.abortStack({ vnfInstanceId }),
      },
    ];
  return [
    ...hookStep(opOccId, hooks, 'heal_start', () => vnfcInstanceIds),
    ...resourceSteps,
    {
      name: 'record instantiatedVnfInfo',
      run: async () => {
        const changes = await acts.recordVnfInfo({ opOccId });
        healed = whole ? [...changes.added, ...changes.modified] : changes.modified;
      },
    },
    ...hookStep(opOccId, hooks, 'heal_end', () => (whole ? undefined : healed)),
  ];
}
