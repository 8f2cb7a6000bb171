/**
 * Cluster upgrade, UPDATE_IN_PROGRESS -> UPDATE_COMPLETE | UPDATE_FAILED
 * (ROLLBACK_* with ?rollback=True): onto a template of a newer Kubernetes
 * (one minor at most, checked at the API), the masters one at a time (the
 * first `kubeadm upgrade apply`, the others `kubeadm upgrade node`; the API
 * stays up on the others), then the workers in batches of max_batch_size
 * (drain, upgrade, uncordon); then the cluster is switched to the new
 * template. A failure ends UPDATE_FAILED naming the node and the step; the
 * same upgrade asked again skips the nodes already on the new version. With
 * ?rollback=True a failure takes every node of the plan back to the old
 * version, the last upgraded first (also those an earlier attempt finished).
 */
import { patched } from '@temporalio/workflow';
import { nodeLabel, onEveryNode } from '../../../cluster/workflows/engine';
import { upgradeNode } from '../../../cluster/workflows/upgrade';
import { runClusterOperation } from '../../../engine/magnum-status';
import type { Step } from '../../../workflow-steps/step';
import type { MagnumOpInput } from '../shared/contracts';
import { magnum } from '../shared/steps';

export async function magnumClusterUpgrade({ clusterId, rollback }: MagnumOpInput): Promise<string> {
  return runClusterOperation(clusterId, 'UPDATE', rollback, async (): Promise<Step[]> => {
    const steps: Step[] = [];
    if (patched('kubeadm-upgrade')) {
      const plan = await magnum.planMagnumUpgrade({ clusterId });
      const to = `v${plan.version}`;
      const change = (nodes: typeof plan.masters, version: string) => () => onEveryNode(nodes, (n) => upgradeNode(clusterId, n, version));
      for (const nodes of [...plan.masters.map((m) => [m]), ...plan.workerBatches]) {
        steps.push({ name: `upgrade ${nodes.map(nodeLabel).join(', ')} to ${to}`, run: change(nodes, plan.version), compensate: change(nodes, plan.from) });
      }
    }
    steps.push({ name: 'switch to the new cluster template', run: () => magnum.applyMagnumUpgrade({ clusterId }) });
    return steps;
  });
}
