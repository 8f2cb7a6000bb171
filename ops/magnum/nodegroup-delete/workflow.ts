/**
 * Nodegroup delete: the cluster UPDATE_*, the nodegroup DELETE_*: its
 * workers cordoned, drained, their Nodes deleted and reset, then its servers
 * removed from the stack; at UPDATE_COMPLETE the nodegroup is gone.
 */
import { runClusterOperation } from '../../../engine/magnum-status';
import type { Step } from '../../../workflow-steps/step';
import { removeWorkers } from '../../../cluster/workflows/engine';
import type { MagnumOpInput } from '../shared/contracts';
import { convergeClusterStack, magnum } from '../shared/steps';

export async function magnumNodegroupDelete(input: MagnumOpInput): Promise<string> {
  const { clusterId } = input;
  return runClusterOperation(clusterId, 'UPDATE', false, async (): Promise<Step[]> => {
    const plan = await magnum.planResize({ clusterId });
    return [
      { name: `remove the nodes of ${plan.nodegroup} from Kubernetes`, run: () => removeWorkers(clusterId, plan.removed, async () => undefined) },
      {
        name: `remove the servers of ${plan.nodegroup} from the stack`,
        run: async () => {
          await magnum.setNodegroupMembers({ nodegroupId: plan.nodegroupId, members: [] });
          await convergeClusterStack(clusterId, input);
        },
      },
    ];
  });
}
