/**
 * recordClusterStatus, the activity engine/magnum-status.ts records every
 * phase with: the cluster's status and reason, the status of the nodegroups
 * the operation changes (a failure goes to the nodegroups its reason names:
 * a Heat resource "<nodegroup>-<n>" or a node of the group) and the CADF
 * notification of the change, all in one transaction; then the sinks are
 * woken and, at the end of a delete, the rows removed. Only the workflow
 * the cluster row names as its operation may write (the fence): a
 * superseded one's late write changes nothing. An auto-healing replacement
 * shows its reason while it runs.
 */
import { Context } from '@temporalio/activity';
import { eq } from 'drizzle-orm';
import type { ActivityDeps } from '../../../../lcm-activities/deps';
import { endHealthLoop } from '../../../../cluster/activities/health';
import { clusterNodes } from '../../../../store/repos/clusters';
import { deleteMagnumCluster, magnumClusterById, writeFenced, type NodegroupRow } from '../../../../store/repos/magnum/clusters';
import { within } from '../../../../store/sql-store';
import { countOperationEnd } from '../../../../common/metrics';
import { redactString } from '../../../../common/secrets';
import type { ClusterStatusRecord } from '../../../../engine/magnum-status';
import { cadfActionOf, isFailed, isInProgress, type ClusterStatus } from '../../../../model/magnum/status';
import { nodegroupsNamedIn } from '../heat-template';
import { dispatchPending } from '../../../../notify/dispatch';
import { cadfEventId } from '../cadf';
import { recordCadfIn, wakeCadf, type CadfRecorded } from './cadf';

/** The nodegroups' own action: a nodegroup made or removed by the operation is CREATE_* or DELETE_* while the cluster is UPDATE_*. */
function nodegroupAction(op: string): string {
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

/** While an auto-healing replacement runs, its reason says why (Magnum shows no step otherwise). */
function healingReason(c: { opParams: Record<string, unknown> }): string | null {
  return typeof c.opParams.autoHealing === 'string' ? c.opParams.autoHealing : null;
}

export function statusActivities(deps: ActivityDeps) {
  const { db, cfg, log } = deps;
  return {
    /** While the operation runs, what it waits for (status_reason; '' clears it). Fenced like the status; a no-op once it ended. */
    async recordClusterWait({ clusterId, statusReason }: { clusterId: string; statusReason: string }): Promise<void> {
      const operationId = Context.current().info.workflowExecution?.workflowId ?? '';
      await writeFenced(db, clusterId, operationId, async ({ db: tx, t }, c) => {
        if (!c.status.endsWith('_IN_PROGRESS')) return;
        const reason = statusReason ? redactString(statusReason).slice(0, 4000) : healingReason(c);
        await tx.update(t.magnumClusters).set({ statusReason: reason, updatedAt: new Date().toISOString() }).where(eq(t.magnumClusters.id, clusterId));
      });
    },

    async recordClusterStatus({ clusterId, status, statusReason, startedAt }: ClusterStatusRecord): Promise<void> {
      const operationId = Context.current().info.workflowExecution?.workflowId ?? '';
      const reason = statusReason ? redactString(statusReason).slice(0, 4000) : null;
      const nodes = await clusterNodes(db, clusterId);
      const now = new Date().toISOString();
      let removeCluster = false;
      let cadf: CadfRecorded | undefined;
      let ended: string | undefined;
      // the status and its CADF event in one transaction: a crash between them would lose the event once another operation fences this one off
      const cluster = await writeFenced(db, clusterId, operationId, async (q, c, groups) => {
        const { db: tx, t } = q;
        const healing = status.endsWith('_IN_PROGRESS') ? healingReason(c) : null;
        await tx.update(t.magnumClusters).set({ status: status as ClusterStatus, statusReason: reason ?? healing, updatedAt: now }).where(eq(t.magnumClusters.id, clusterId));
        const mine = groups.filter((g) => c.opNodegroups.includes(g.id));
        const ngStatus = status.replace(/^(CREATE|UPDATE|DELETE)_/, `${nodegroupAction(c.operation)}_`) as ClusterStatus;
        const named = isFailed(status) && reason ? namedGroups(reason, mine, nodes) : [];
        for (const g of mine) {
          const why = !isFailed(status) ? null : !named.length || named.includes(g.name) ? reason : `not completed: ${named.join(', ')} failed`;
          if (c.operation === 'nodegroup-delete' && status === 'UPDATE_COMPLETE') await tx.delete(t.magnumNodegroups).where(eq(t.magnumNodegroups.id, g.id));
          else await tx.update(t.magnumNodegroups).set({ status: ngStatus, statusReason: why, updatedAt: now }).where(eq(t.magnumNodegroups.id, g.id));
        }
        removeCluster = c.operation === 'cluster-delete' && status === 'DELETE_COMPLETE';
        ended = c.status !== status && !isInProgress(status) ? c.operation : undefined;
        const action = cadfActionOf(c.operation);
        const written = await magnumClusterById(within(q), clusterId);
        cadf = action && written ? await recordCadfIn(q, cfg, { row: written, operationId, status, action }) : undefined;
      });
      if (!cluster) {
        log.info({ clusterId, operationId, status }, 'status of a superseded operation not recorded');
        // a run of this activity before the operation was superseded may have committed the status and its event, then died before waking the sinks
        await dispatchPending(Context.current().client, cfg.taskQueue, db, [cadfEventId(operationId, status)]);
        return;
      }
      // counted once: a retried write finds the status already there
      if (ended) countOperationEnd({ api: 'magnum', operation: ended, state: status, final: true, startedAt });
      if (cadf) await wakeCadf(deps, cadf);
      if (removeCluster) {
        await deleteMagnumCluster(db, clusterId);
        await endHealthLoop(deps, clusterId);
        log.info({ clusterId }, 'Magnum cluster deleted');
      }
    },
  };
}
