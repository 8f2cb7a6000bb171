/** Nodegroup update: the cluster UPDATE_*, the nodegroup UPDATE_*; its node labels and taints put on its nodes. */
import { runClusterOperation } from '../../../engine/magnum-status';
import type { MagnumOpInput } from '../shared/contracts';
import { magnum } from '../shared/steps';

export async function magnumNodegroupUpdate({ clusterId }: MagnumOpInput): Promise<string> {
  return runClusterOperation(clusterId, 'UPDATE', false, [
    { name: 'label and taint the nodegroup\'s nodes', run: () => magnum.labelMagnumNodes({ clusterId }) },
  ]);
}
