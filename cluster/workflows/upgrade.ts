/**
 * A node's Kubernetes upgrade in workflow code: skipped when the node stands
 * on the target already (an upgrade asked again resumes), else kubeadm's
 * package, `kubeadm upgrade apply|node`, the drain (polled on timers until
 * the node is empty), the kubelet's package and restart, the uncordon, and
 * the node Ready on the target. A failure names the step and the node.
 */
import type { NodeRef } from '../activities/types';
import { UPGRADE_STEPS } from '../model';
import { nodeActs, nodeLabel, quick, waitUntil } from './engine';

/** `apply` on the first master of a cluster upgrade (it moves the cluster's version), `node` everywhere else. */
export async function upgradeNode(clusterId: string, node: NodeRef, version: string, mode: 'apply' | 'node'): Promise<void> {
  const at = { clusterId, serverId: node.serverId, version };
  if ((await quick.nodeOnVersion(at)).ok) return;
  for (const step of UPGRADE_STEPS) {
    await waitUntil(`${step} of ${nodeLabel(node)}`, 1800, () => nodeActs.upgradeNodeStep({ ...at, step, mode }));
  }
  await waitUntil(`${nodeLabel(node)} Ready on v${version.replace(/^v/, '')}`, 600, () => quick.nodeOnVersion(at));
}
