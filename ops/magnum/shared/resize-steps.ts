/**
 * A nodegroup resized, as cluster update (PATCH node_count) and resize both
 * do it: the leaving workers out of Kubernetes first (cordon, drain, delete
 * the Node, kubeadm reset), then the stack to the new members, then the new
 * servers installed and joined. With ?rollback=True a failure puts the old
 * members back (the stack converged to them, any server it recreates joined).
 */
import type { HeatPolling } from '../../../workflow-steps/stack';
import type { Step } from '../../../workflow-steps/step';
import { removeMasters, removeWorkers } from '../../../cluster/workflows/engine';
import { convergeClusterStack, joinNewNodes, magnum } from './steps';

export async function resizeSteps(clusterId: string, poll: HeatPolling): Promise<Step[]> {
  const plan = await magnum.planResize({ clusterId });
  const steps: Step[] = [];
  const masters = plan.removed.filter((n) => n.role === 'master');
  const workers = plan.removed.filter((n) => n.role !== 'master');
  if (masters.length) {
    steps.push({
      name: `remove ${masters.map((n) => n.name).join(', ')} from etcd and Kubernetes`,
      run: () => removeMasters(clusterId, masters, async () => undefined),
    });
  }
  if (workers.length) {
    steps.push({
      name: `remove ${workers.map((n) => n.name).join(', ')} from Kubernetes`,
      run: () => removeWorkers(clusterId, workers, async () => undefined),
    });
  }
  steps.push({
    name: `resize ${plan.nodegroup} to ${plan.members.length} node(s) in the stack`,
    run: async () => {
      await magnum.setNodegroupMembers({ nodegroupId: plan.nodegroupId, members: plan.members });
      await convergeClusterStack(clusterId, poll);
    },
    compensate: async () => {
      await magnum.setNodegroupMembers({ nodegroupId: plan.nodegroupId, members: plan.before });
      await convergeClusterStack(clusterId, poll);
      await joinNewNodes(clusterId);
    },
  });
  steps.push({ name: `join the new node(s) of ${plan.nodegroup}`, run: () => joinNewNodes(clusterId) });
  return steps;
}
