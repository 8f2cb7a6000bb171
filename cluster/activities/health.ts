/** One health poll of a cluster (cluster/workflows/health.ts), recorded on the cluster. */
import type { ActivityDeps } from '../../activities/deps';
import { clusterById, updateCluster } from '../../common/db/repos/clusters';
import { KubeApiError, nodeReadyStatus } from '../../infra/kubernetes';
import type { HealthStatus } from '../model';
import { openCluster } from './access';

export function healthActivities(deps: ActivityDeps) {
  return {
    /** How often the health workflow polls (CLUSTER_HEALTH_INTERVAL_S). */
    async healthInterval(): Promise<number> {
      return deps.cfg.cluster.healthIntervalS;
    },

    async checkClusterHealth({ clusterId }: { clusterId: string }): Promise<{ exists: boolean; status?: HealthStatus }> {
      if (!(await clusterById(deps.db, clusterId))) return { exists: false };
      const c = await openCluster(deps, clusterId);
      let status: HealthStatus;
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
      return { exists: true, status };
    },
  };
}
