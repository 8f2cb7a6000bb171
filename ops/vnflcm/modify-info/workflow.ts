/**
 * ModifyVnfInfo (SOL003 5.4.2.3.4, MODIFY_INFO):
 *   modify_information_start hook -> the instance's information modified
 *   (one transaction: the instance and the op occ's changedInfo, package usage)
 *   -> modify_information_end hook.
 * Nothing on the VIM changes. The write is one transaction, so a failed step
 * changed nothing and a rollback has nothing to undo (as Tacker's).
 */
import type { LcmOpInput } from '../../../engine/contracts';
import { runOperation } from '../../../engine/etsi-op-occ';
import type { Step } from '../../../workflow-steps/step';
import { activitiesOf, planReads } from '../../../workflow-steps/activities';
import { hookStep } from '../../../workflow-steps/hooks';
import type { ModifyInfoActivities } from './activities';

/** This operation's own activities (./activities.ts), with the shared proxies' options. */
const own = activitiesOf<ModifyInfoActivities>();

export async function modifyInfo(input: LcmOpInput) {
  const { opOccId } = input;
  // Planned inside the engine: the operator's handlers exist before the first await.
  return runOperation(input, async (): Promise<Step[]> => {
    const { hooks } = await planReads().describeOperation({ opOccId });
    return [
      ...hookStep(opOccId, hooks, 'modify_information_start'),
      { name: 'modify the VNF instance information', run: () => own.acts.modifyInstanceInfo({ opOccId }) },
      ...hookStep(opOccId, hooks, 'modify_information_end'),
    ];
  });
}
