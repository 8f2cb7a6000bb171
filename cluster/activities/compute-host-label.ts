/**
 * Tacker's pod-affinity label (kubernetes_mgmt.py, _set_node_label): a
 * worker of a Kubernetes VNF whose server is in a server group (the
 * `podaffinity` flavour's anti-affinity) is labelled CIS-node=<its compute
 * host>, so that pods with an anti-affinity on that label spread over
 * compute hosts, not only over nodes. Nova names the host to admins; other
 * callers get its hostId (Nova's per-project hash of it), which tells hosts
 * apart the same way.
 */
import type { ActivityDeps } from '../../lcm-activities/deps';
import type { ClusterNodeRow } from '../../store/repos/clusters';
import { novaForVim } from '../../infra/vim';
import type { ClusterAccess } from './access';

const COMPUTE_HOST_LABEL = 'CIS-node';

/** A Kubernetes label value: at most 63 of [A-Za-z0-9._-], alphanumeric at both ends. */
const labelValue = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 63).replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');

/** The label for the node: none unless it is a VNF's worker in a server group. */
export async function computeHostLabel(deps: ActivityDeps, c: ClusterAccess, node: ClusterNodeRow): Promise<Record<string, string>> {
  if (c.cluster.kind !== 'vnf' || node.role !== 'worker' || !c.cluster.vimId) return {};
  const placement = await (await novaForVim(deps.db, deps.box, c.cluster.vimId)).placement(node.serverId);
  const host = labelValue(placement.host ?? placement.hostId ?? '');
  return placement.serverGroups.length && host ? { [COMPUTE_HOST_LABEL]: host } : {};
}
