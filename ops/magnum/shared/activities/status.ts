/**
 * recordClusterStatus, the activity engine/magnum-status.ts records every
 * phase with: the cluster's status and reason, the status of the nodegroups
 * the operation changes (a failure goes to the nodegroups its reason names:
 * a Heat resource "<nodegroup>-<n>" or a node of the group), the CADF
 * notification of the change, and at the end of a delete the rows
 * themselves. Only the workflow the cluster row names as its operation may
 * write (the fence): a superseded one's late write changes nothing.
 */
import { Context } from '@temporalio/activity';
import { eq } from 'drizzle-orm';
import type { ActivityDeps } from '../../../../activities/deps';
import { clusterNodes } from '../../../../common/db/repos/clusters';
import { deleteMagnumCluster, magnumClusterById, writeFenced, type MagnumClusterRow, type NodegroupRow } from '../../../../common/db/repos/magnum/clusters';
import { redactString } from '../../../../common/secrets';
import type { ClusterStatusRecord } from '../../../../engine/magnum-status';
import { cadfActionOf, isFailed, type ClusterStatus, type MagnumOperation } from '../../../../model/magnum/status';
import { nodegroupsNamedIn } from '../heat-template';
import { emitCadf } from './cadf';

/** The nodegroups' own action: a nodegroup made or removed by the operation is CREATE_* or DELETE_* while the cluster is UPDATE_*. */
function nodegroupAction(op: MagnumOperation): string {
  if (op === 'cluster-create' || op === 'nodegroup-create') return 'CREATE';
  if (op === 'cluster-delete' || op === 'nodegroup-delete') return 'DELETE';
  return 'UPDATE';
}

/** Nodegroups a failure reason is about: Heat resources of theirs, or their nodes (by name or address). */
function namedGroups(reason: string, groups: NodegroupRow[], nodes: { name: string; address: string; nodegroup: string }[]): string[] {
  const names = new Set(nodegroupsNamedIn(reason, groups.map((g) => g.name)));
  for (const n of nodes) if (reason.includes(n.name) || reason.includes(`(${n.address})`)) names.add(n.nodegroup);
  return [...names];
}

export function statusActivities(deps: ActivityDeps) {
  const { db, log } = deps;
  return {
    async recordClusterStatus({ clusterId, status, statusReason }: ClusterStatusRecord): Promise<void> {
      const operationId = Context.current().info.workflowExecution?.workflowId ?? '';
      const reason = statusReason ? redactString(statusReason).slice(0, 4000) : null;
      const nodes = await clusterNodes(db, clusterId);
      const now = new Date().toISOString();
      let removeCluster = false;
      const cluster = await writeFenced(db, clusterId, operationId, async ({ db: q, t }, c, groups) => {
        await q.update(t.magnumClusters).set({ status: status as ClusterStatus, statusReason: reason, updatedAt: now }).where(eq(t.magnumClusters.id, clusterId));
        const mine = groups.filter((g) => c.opNodegroups.includes(g.id));
        const ngStatus = status.replace(/^(CREATE|UPDATE|DELETE)_/, `${nodegroupAction(c.operation)}_`) as ClusterStatus;
        const named = isFailed(status) && reason ? namedGroups(reason, mine, nodes) : [];
        for (const g of mine) {
          const why = !isFailed(status) ? null : !named.length || named.includes(g.name) ? reason : `not completed: ${named.join(', ')} failed`;
          if (c.operation === 'nodegroup-delete' && status === 'UPDATE_COMPLETE') await q.delete(t.magnumNodegroups).where(eq(t.magnumNodegroups.id, g.id));
          else await q.update(t.magnumNodegroups).set({ status: ngStatus, statusReason: why, updatedAt: now }).where(eq(t.magnumNodegroups.id, g.id));
        }
        removeCluster = c.operation === 'cluster-delete' && status === 'DELETE_COMPLETE';
      });
      if (!cluster) {
        log.info({ clusterId, operationId, status }, 'status of a superseded operation not recorded');
        return;
      }
      const fresh = (await magnumClusterById(db, clusterId)) as MagnumClusterRow;
      const action = cadfActionOf(cluster.operation);
      if (action) await emitCadf(deps, { row: fresh, operationId, status, action });
      if (removeCluster) {
        await deleteMagnumCluster(db, clusterId);
        log.info({ clusterId }, 'Magnum cluster deleted');
      }
    },
  };
}
