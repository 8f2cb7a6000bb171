/**
 * CA rotation of a cluster, one workflow: new CAs and service-account keys,
 * then node by node (masters first) onto them, each Ready again before the
 * next; then the cluster uses the new generation, its VIM token is renewed,
 * and certificates of the old CAs are refused. A node that fails stops the
 * rotation there; run again, it goes on from that node (the nodes done
 * remember their generation).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { ClusterActivities } from '../activities';
import { nodeLabel, waitUntil } from './engine';

const nodeActs = proxyActivities<ClusterActivities>({
  startToCloseTimeout: '30m', heartbeatTimeout: '1m',
  retry: { initialInterval: '5s', maximumInterval: '1m', maximumAttempts: 3, nonRetryableErrorTypes: ['NodeStepFailed', 'OutboundRefused'] },
});
const quick = proxyActivities<ClusterActivities>({
  startToCloseTimeout: '1m', retry: { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 5, nonRetryableErrorTypes: ['NodeStepFailed', 'OutboundRefused'] },
});

export interface RotateCaInput { clusterId: string }

export async function rotateClusterCa({ clusterId }: RotateCaInput): Promise<void> {
  const { generation, nodes } = await quick.beginCaRotation({ clusterId });
  for (const n of nodes) {
    await nodeActs.rotateNodeCa({ clusterId, serverId: n.serverId, generation });
    if (n.role === 'master') await waitUntil(`the Kubernetes API of ${nodeLabel(n)} with the new CA`, 600, () => quick.apiHealth({ clusterId, generation }));
    await waitUntil(`${nodeLabel(n)} Ready after the CA rotation`, 600, () => quick.nodeReady({ clusterId, serverId: n.serverId, generation }));
  }
  await quick.finishCaRotation({ clusterId, generation });
  await quick.renewClusterVim({ clusterId });
}
