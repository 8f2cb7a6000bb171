/**
 * Cluster upgrade, UPDATE_IN_PROGRESS -> UPDATE_COMPLETE | UPDATE_FAILED:
 * the cluster (or the nodegroup) is switched to the new template. The API
 * refuses at once a template whose Kubernetes version differs (this driver
 * has no in-place kubeadm upgrade yet), so what remains has no node to touch.
 */
import { runClusterOperation } from '../../../engine/magnum-status';
import type { MagnumOpInput } from '../shared/contracts';
import { magnum } from '../shared/steps';

export async function magnumClusterUpgrade({ clusterId }: MagnumOpInput): Promise<string> {
  return runClusterOperation(clusterId, 'UPDATE', false, [
    { name: 'switch to the new cluster template', run: () => magnum.applyMagnumUpgrade({ clusterId }) },
  ]);
}
