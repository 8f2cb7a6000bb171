/**
 * The health of one cluster, for as long as it exists: every interval, the
 * API's /healthz and each node's Ready condition with the engine's admin
 * certificate, recorded as HEALTHY / UNHEALTHY / UNKNOWN with a reason per
 * node (Magnum's health_status and health_status_reason). One workflow per
 * cluster (id cluster-health-<cluster id>), continued as new before its
 * history grows; it ends when the cluster is gone.
 */
import { continueAsNew, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { ClusterActivities } from '../activities';

const quick = proxyActivities<ClusterActivities>({
  startToCloseTimeout: '1m', retry: { initialInterval: '1s', maximumInterval: '30s' },
});

export interface ClusterHealthInput { clusterId: string; intervalS: number }

export const healthWorkflowId = (clusterId: string) => `cluster-health-${clusterId}`;

/** Polls per run before continue-as-new (each poll is a few events). */
const POLLS_PER_RUN = 200;

export async function clusterHealth(input: ClusterHealthInput): Promise<void> {
  for (let i = 0; i < POLLS_PER_RUN; i++) {
    const { exists } = await quick.checkClusterHealth({ clusterId: input.clusterId });
    if (!exists) return;
    await sleep(input.intervalS * 1000);
    if (workflowInfo().continueAsNewSuggested) break;
  }
  await continueAsNew<typeof clusterHealth>(input);
}
