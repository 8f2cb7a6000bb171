/**
 * The health of one cluster, for as long as it exists: every interval, the
 * API's /healthz and each node's Ready condition with the engine's admin
 * certificate, recorded as HEALTHY / UNHEALTHY / UNKNOWN with a reason per
 * node (Magnum's health_status and health_status_reason). One workflow per
 * cluster (id cluster-health-<cluster id>), continued as new before its
 * history grows; it ends when the cluster is gone (the cluster's deletion
 * cancels it, so it does not keep asking a half-removed cluster for up to a
 * Kubernetes timeout). With auto-healing, the
 * nodes NotReady for too long are handed to whoever drives the cluster to be
 * replaced (ops/auto-heal.ts: a Magnum resize, a Tacker heal).
 */
import { continueAsNew, isCancellation, log, patched, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { ClusterActivities } from '../activities';
import type { AutoHealActivities } from '../activities/types';

const quick = proxyActivities<ClusterActivities & AutoHealActivities>({
  startToCloseTimeout: '1m', retry: { initialInterval: '1s', maximumInterval: '30s' },
});

export interface ClusterHealthInput { clusterId: string; intervalS: number }

/** Polls per run before continue-as-new (each poll is a few events). */
const POLLS_PER_RUN = 200;

export async function clusterHealth(input: ClusterHealthInput): Promise<void> {
  try {
    if ((await pollHealth(input)) === 'cluster gone') return;
  } catch (e) {
    // cancelled by the cluster's deletion (cluster/activities/health-loop.ts): the loop's work is done
    if (isCancellation(e)) return;
    throw e;
  }
  await continueAsNew<typeof clusterHealth>(input);
}

/** Health polls until the cluster is gone or this run's history is long enough. */
async function pollHealth(input: ClusterHealthInput): Promise<'cluster gone' | 'continue as new'> {
  for (let i = 0; i < POLLS_PER_RUN; i++) {
    const { exists, overdue } = await quick.checkClusterHealth({ clusterId: input.clusterId });
    if (!exists) return 'cluster gone';
    if (overdue?.length && patched('auto-healing')) {
      const r = await quick.autoHealNodes({ clusterId: input.clusterId, serverIds: overdue });
      if (r.started) log.info('auto-healing started', { operationId: r.started });
    }
    await sleep(input.intervalS * 1000);
    if (workflowInfo().continueAsNewSuggested) break;
  }
  return 'continue as new';
}
