/**
 * Cluster upgrade, UPDATE_IN_PROGRESS -> UPDATE_COMPLETE | UPDATE_FAILED:
 * onto a template of a newer Kubernetes (one minor at most, checked at the
 * API), the masters one at a time (the first `kubeadm upgrade apply`, the
 * others `kubeadm upgrade node`; the API stays up on the others), then the
 * workers in batches of max_batch_size (drain, upgrade, uncordon); then the
 * cluster is switched to the new template. A failure ends UPDATE_FAILED
 * naming the node and the step; the same upgrade asked again skips the nodes
 * already on the new version. The same version: a template switch only.
 */
import { patched } from '@temporalio/workflow';
import { nodeLabel, onEveryNode } from '../../../cluster/workflows/engine';
import { upgradeNode } from '../../../cluster/workflows/upgrade';
import { runClusterOperation } from '../../../engine/magnum-status';
import type { Step } from '../../../engine/saga';
import type { MagnumOpInput } from '../shared/contracts';
import { magnum } from '../shared/steps';

export async function magnumClusterUpgrade({ clusterId }: MagnumOpInput): Promise<string> {
  return runClusterOperation(clusterId, 'UPDATE', false, async (): Promise<Step[]> => {
    const steps: Step[] = [];
    if (patched('kubeadm-upgrade')) {
      const plan = await magnum.planMagnumUpgrade({ clusterId });
      const to = `v${plan.version}`;
      plan.masters.forEach((m, i) => steps.push({ name: `upgrade ${nodeLabel(m)} to ${to}`, run: () => upgradeNode(clusterId, m, plan.version, i === 0 && plan.apply ? 'apply' : 'node') }));
      for (const batch of plan.workerBatches) {
        steps.push({ name: `upgrade ${batch.map(nodeLabel).join(', ')} to ${to}`, run: () => onEveryNode(batch, (n) => upgradeNode(clusterId, n, plan.version, 'node')) });
      }
    }
    steps.push({ name: 'switch to the new cluster template', run: () => magnum.applyMagnumUpgrade({ clusterId }) });
    return steps;
  });
}
