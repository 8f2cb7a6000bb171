/**
 * Auto-healing of a Magnum cluster (label auto_healing_enabled): a resize
 * that replaces the nodes, as an operator's resize with nodes_to_remove
 * would, but with node_count unchanged (ops/auto-heal-share.ts says which).
 * Never beside another operation. Masters too when several sit behind the
 * API load balancer and the others keep etcd's quorum (a lone master's
 * replacement would be a new cluster: left to the operator). The
 * operation's status_reason says why while it runs, and its CADF events
 * carry it.
 */
import type { Client } from '@temporalio/client';
import type { ActivityDeps } from '../../lcm-activities/deps';
import type { ClusterNodeRow } from '../../store/repos/clusters';
import { beginOperation, magnumClusterById, markWorkflowStarted, nodegroupsOf, Refused, type MagnumClusterRow } from '../../store/repos/magnum/clusters';
import { RESIZABLE } from '../../model/magnum/status';
import { autoHealReason, healable, mastersLeftReason, nodesToReplace } from '../auto-heal-share';
import { activeTraceId } from '../../common/tracing';
import { newOperationId, startMagnumOperationWorkflow } from './start';

export async function autoHealMagnum(deps: ActivityDeps, temporal: Client, clusterId: string, overdue: ClusterNodeRow[]): Promise<{ started?: string; skipped?: string }> {
  const { db, cfg, log } = deps;
  const start = async (row: MagnumClusterRow): Promise<string> => {
    await startMagnumOperationWorkflow(temporal, cfg, row);
    await markWorkflowStarted(db, row.id, row.operationId);
    return row.operationId;
  };
  const row = await magnumClusterById(db, clusterId);
  if (!row) return { skipped: 'the Magnum cluster is gone' };
  // a run of this activity that recorded its operation and died before starting it
  if (!row.workflowStarted && row.opParams.autoHealing) return { started: await start(row) };
  const groups = await nodegroupsOf(db, clusterId);
  const masters = groups.find((g) => g.role === 'master')?.nodeCount ?? 0;
  const chosen = nodesToReplace(healable(overdue, masters), (g) => groups.find((x) => x.name === g)?.nodeCount ?? 0);
  const ng = groups.find((g) => g.name === chosen[0]?.nodegroup);
  if (!ng) return { skipped: mastersLeftReason(masters, overdue.filter((n) => n.role === 'master').length) };
  const why = autoHealReason(chosen, cfg.cluster.autoHealAfterS);
  let begun: MagnumClusterRow;
  try {
    begun = await beginOperation(db, clusterId, {
      operation: 'cluster-resize', operationId: newOperationId('cluster-resize'), traceId: activeTraceId(), status: 'UPDATE_IN_PROGRESS', statusReason: why,
      opParams: { nodegroupId: ng.id, nodegroup: ng.name, nodeCount: ng.nodeCount, nodesToRemove: chosen.map((n) => n.serverId), replace: true, autoHealing: why },
      check: (c) => { if (!RESIZABLE.includes(c.status)) throw new Refused(409, `the cluster is ${c.status}`); },
      nodegroups: async () => ({ ids: [ng.id], status: 'UPDATE_IN_PROGRESS' }),
    });
  } catch (e) {
    if (e instanceof Refused) return { skipped: e.message };
    throw e;
  }
  await start(begun);
  log.info({ clusterId, operationId: begun.operationId }, why);
  return { started: begun.operationId };
}
