/**
 * A node's Kubernetes version change in workflow code: skipped when the node
 * stands on the version already (an upgrade asked again resumes), else
 * kubeadm's package, `kubeadm upgrade apply|node` (apply on the first master
 * to move: the activity reads the cluster's version), the drain (polled on
 * timers until the node is empty), the kubelet's package and restart, the
 * uncordon, and the node Ready on the version. The same steps take a node
 * back to the old version (a rollback). A failure names the step and the node.
 */
import type { NodeRef } from '../activities/types';
import { UPGRADE_STEPS } from '../../model/cluster';
import { nodeActs, nodeLabel, quick, waitUntil } from './engine';

export async function upgradeNode(clusterId: string, node: NodeRef, version: string): Promise<void> {
  const at = { clusterId, serverId: node.serverId, version };
  if ((await quick.nodeOnVersion(at)).ok) return;
  for (const step of UPGRADE_STEPS) {
    await waitUntil(`${step} of ${nodeLabel(node)}`, 1800, () => nodeActs.upgradeNodeStep({ ...at, step }));
  }
  await waitUntil(`${nodeLabel(node)} Ready on v${version.replace(/^v/, '')}`, 600, () => quick.nodeOnVersion(at));
}
