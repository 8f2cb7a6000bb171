/**
 * Auto-healing of Tacker's Kubernetes VNF (opt-in:
 * k8s_cluster_installation_param.auto_healing_enabled): a heal of the nodes'
 * VNFCs with isAutomaticInvocation true, as an operator's heal with
 * vnfcInstanceId would run (the Mgmt Driver's heal_start and heal_end take
 * the node out and join its new server). Masters only in a highly available
 * control plane that keeps etcd's quorum (a lone master's heal rebuilds the
 * cluster). Never beside another operation on the instance.
 */
import type { Client } from '@temporalio/client';
import type { ActivityDeps } from '../../../lcm-activities/deps';
import type { ClusterNodeRow, ClusterRow } from '../../../store/repos/clusters';
import { instanceById } from '../../../store/repos/instances';
import { OpenOperation } from '../../../store/repos/op-occs';
import { autoHealReason, healable, mastersLeftReason, nodesToReplace } from '../../auto-heal-share';
import { recordAndStartOperation } from '../start';
import { precheckHeal } from './precheck';

export async function autoHealVnf(deps: ActivityDeps, temporal: Client, cluster: ClusterRow, overdue: ClusterNodeRow[], all: ClusterNodeRow[]): Promise<{ started?: string; skipped?: string }> {
  const instance = cluster.vnfInstanceId ? await instanceById(deps.db, cluster.vnfInstanceId) : undefined;
  if (!instance) return { skipped: 'the VNF instance is gone' };
  const masters = cluster.settings.vip ? all.filter((n) => n.role === 'master').length : 1;
  const chosen = nodesToReplace(healable(overdue, masters), (g) => all.filter((n) => n.nodegroup === g).length);
  if (!chosen.length) return { skipped: mastersLeftReason(masters, overdue.filter((n) => n.role === 'master').length) };
  const request = { vnfcInstanceId: chosen.map((n) => n.hostKeyId), cause: autoHealReason(chosen, deps.cfg.cluster.autoHealAfterS) };
  const scope = { projectId: instance.projectId, all: false };
  const plan = await precheckHeal({ db: deps.db, box: deps.box, cfg: deps.cfg, scope, instance, request, version: 'v1', actingVim: async (vim) => vim.id });
  try {
    const op = await recordAndStartOperation({ ...deps, temporal }, { scope, instanceId: instance.id, operation: 'HEAL', params: request, automatic: true, ...plan });
    deps.log.info({ clusterId: cluster.id, opOccId: op.id }, request.cause);
    return { started: op.id };
  } catch (e) {
    if (e instanceof OpenOperation) return { skipped: e.message };
    throw e;
  }
}
