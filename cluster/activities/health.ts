/**
 * One health poll of a cluster (cluster/workflows/health.ts), recorded on the
 * cluster; with auto-healing, the joined nodes whose Ready condition has not
 * been True for longer than autoHealAfterS (since its lastTransitionTime, so
 * a restarted worker or workflow does not start the clock again).
 */
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { ActivityDeps } from '../../lcm-activities/deps';
import { clusterById, updateCluster } from '../../store/repos/clusters';
import { KubeApiError, nodeReadyStatus, type KubeNode } from '../../infra/kubernetes';
import { healthWorkflowId, type HealthStatus } from '../../model/cluster';
import { openCluster } from './access';

export function healthActivities(deps: ActivityDeps) {
  return {
    /** How often the health workflow polls (CLUSTER_HEALTH_INTERVAL_S). */
    async healthInterval(): Promise<number> {
      return deps.cfg.cluster.healthIntervalS;
    },

    async checkClusterHealth({ clusterId }: { clusterId: string }): Promise<{ exists: boolean; status?: HealthStatus; overdue?: string[] }> {
      if (!(await clusterById(deps.db, clusterId))) return { exists: false };
      const c = await openCluster(deps, clusterId);
      let status: HealthStatus;
      let overdue: string[] = [];
      const reason: Record<string, string> = {};
      if (!c.cluster.endpoint) {
        status = 'UNKNOWN';
        reason.api = 'the cluster has no API endpoint yet';
      } else {
        try {
          const kube = c.kube();
          const h = await kube.healthz();
          reason.api = h.status === 200 ? 'ok' : `healthz answered ${h.status}: ${h.body.slice(0, 100)}`;
          const nodes = await kube.listNodes();
          for (const n of nodes) reason[`${n.metadata.name}.Ready`] = nodeReadyStatus(n);
          if (c.cluster.settings.autoHealing) {
            const since = Date.now() - deps.cfg.cluster.autoHealAfterS * 1000;
            overdue = c.nodes.filter((x) => x.joinState === 'joined' && notReadySince(nodes.find((k) => k.metadata.name === x.name)) < since).map((x) => x.serverId);
          }
          // a node the cluster has but the API does not know is not ready either
          for (const n of c.nodes.filter((x) => x.joinState === 'joined' && !nodes.some((k) => k.metadata.name === x.name))) reason[`${n.name}.Ready`] = 'Missing';
          status = h.status === 200 && Object.entries(reason).every(([k, v]) => k === 'api' || v === 'True') ? 'HEALTHY' : 'UNHEALTHY';
        } catch (e) {
          // the API cannot be reached (or refuses the engine's certificate): nothing is known of the nodes
          status = e instanceof KubeApiError && e.status !== undefined && e.status < 500 ? 'UNHEALTHY' : 'UNKNOWN';
          reason.api = `The cluster ${c.cluster.name} is not accessible: ${(e as Error).message.slice(0, 200)}`;
        }
      }
      await updateCluster(deps.db, clusterId, { healthStatus: status, healthStatusReason: reason });
      return { exists: true, status, ...(overdue.length ? { overdue } : {}) };
    },
  };
}

/** When the node's Ready condition last left True (ms); Infinity while Ready, or when the API does not know the node. */
function notReadySince(node: KubeNode | undefined): number {
  const ready = node?.status?.conditions?.find((c) => c.type === 'Ready');
  if (!ready || ready.status === 'True' || !ready.lastTransitionTime) return Infinity;
  return Date.parse(ready.lastTransitionTime);
}

/**
 * Ends a deleted cluster's health loop now, from the activity that deleted it. Else the loop's poll in flight
 * may wait on the half-removed cluster up to a Kubernetes timeout before it finds the cluster gone.
 * Best effort: the loop also ends at its next poll on its own.
 */
export async function endHealthLoop(deps: ActivityDeps, clusterId: string): Promise<void> {
  try {
    await Context.current().client.workflow.getHandle(healthWorkflowId(clusterId)).cancel();
  } catch (e) {
    if (!(e instanceof WorkflowNotFoundError)) deps.log.warn({ clusterId, err: (e as Error).message }, 'the health loop of a deleted cluster not cancelled (it ends at its next poll)');
  }
}
