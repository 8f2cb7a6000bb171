/**
 * ChangeExtVnfConnectivity (SOL003 5.4.11, CHANGE_EXT_CONN):
 *   change_external_connectivity_start hook
 *   -> stack update with the requested connectivity merged over the
 *      instance's (a CP moved to another network gets a new port there, which
 *      Heat attaches to the same server; new addresses on the same network
 *      update the port) -> wait UPDATE_COMPLETE -> instantiatedVnfInfo and the
 *      op occ's changedExtConnectivity
 *   -> change_external_connectivity_end hook
 *   -> the instance's record takes the new connectivity (what later heals and
 *      scales build from).
 * Rollback updates the stack back to the instance's recorded connectivity,
 * and gives a port Heat failed to replace its recorded addresses back.
 */
import type { LcmOpInput } from '../../../engine/contracts';
import { runOperation } from '../../../engine/etsi-op-occ';
import type { Step } from '../../../workflow-steps/step';
import { activitiesOf, acts, planReads } from '../../../workflow-steps/activities';
import { hookStep } from '../../../workflow-steps/hooks';
import { sent, waitForStack } from '../../../workflow-steps/stack';
import type { ChangeExtConnActivities } from './activities';

/** This operation's own activities (./activities.ts), with the shared proxies' options. */
const own = activitiesOf<ChangeExtConnActivities>();

export async function changeExtConn(input: LcmOpInput) {
  const { opOccId, vnfInstanceId } = input;
  const connect = async (connectivity: 'current' | 'requested') => {
    await waitForStack(vnfInstanceId, 'UPDATE', input, await sent(() => acts.updateStack({ opOccId, connectivity })));
    if (connectivity === 'current') await own.acts.restoreExtCpAddresses({ opOccId });
    await acts.recordVnfInfo({ opOccId, connectivity });
  };
  // Planned inside the engine: the operator's handlers exist before the first await.
  return runOperation(input, async (): Promise<Step[]> => {
    const { hooks } = await planReads().describeOperation({ opOccId });
    return [
      ...hookStep(opOccId, hooks, 'change_external_connectivity_start'),
      {
        name: 'update stack (external connectivity)',
        run: () => connect('requested'),
        compensate: () => connect('current'),
        abort: () => acts.abortStack({ vnfInstanceId }),
      },
      ...hookStep(opOccId, hooks, 'change_external_connectivity_end'),
      { name: 'record the new external connectivity', run: () => own.acts.recordExtConnectivity({ opOccId }) },
    ];
  });
}
