/**
 * autoHealNodes, the activity a cluster's health workflow hands the nodes
 * NotReady too long to (cluster/workflows/health.ts): whoever drives the
 * cluster replaces them, Magnum with a resize, Tacker's VNF with a heal.
 */
import { Context } from '@temporalio/activity';
import type { AutoHealActivities } from '../cluster/activities/types';
import { clusterById, clusterNodes } from '../store/repos/clusters';
import { autoHealMagnum } from './magnum/auto-heal';
import { autoHealVnf } from './vnflcm/heal/auto-heal';
import type { ActivityDeps } from '../lcm-activities/deps';

export function autoHealActivities(deps: ActivityDeps): AutoHealActivities {
  return {
    async autoHealNodes({ clusterId, serverIds }) {
      const cluster = await clusterById(deps.db, clusterId);
      if (!cluster) return { skipped: 'the cluster is gone' };
      const nodes = await clusterNodes(deps.db, clusterId);
      const overdue = nodes.filter((n) => serverIds.includes(n.serverId));
      const temporal = Context.current().client;
      return cluster.kind === 'magnum' ? autoHealMagnum(deps, temporal, clusterId, overdue) : autoHealVnf(deps, temporal, cluster, overdue, nodes);
    },
  };
}
