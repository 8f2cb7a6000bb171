/**
 * Nodegroup create: the cluster UPDATE_*, the nodegroup CREATE_*: its
 * servers added to the cluster's stack, then installed, joined and labelled
 * (magnum.openstack.org/role and /nodegroup, its node_labels and taints).
 */
import { runClusterOperation } from '../../../engine/magnum-status';
import type { MagnumOpInput } from '../shared/contracts';
import { convergeClusterStack, joinNewNodes } from '../shared/steps';

export async function magnumNodegroupCreate(input: MagnumOpInput): Promise<string> {
  const { clusterId } = input;
  return runClusterOperation(clusterId, 'UPDATE', false, [
    { name: 'add the nodegroup\'s servers to the stack', run: () => convergeClusterStack(clusterId, input) },
    { name: 'join the nodegroup\'s nodes', run: () => joinNewNodes(clusterId) },
  ]);
}
