/**
 * Auto-healing's rule, for Magnum clusters and Tacker's Kubernetes VNF alike:
 * of the nodes NotReady too long, those of one nodegroup, at most 40 % of
 * its size (at least one node) in one operation, as Cluster API's
 * MachineHealthCheck maxUnhealthy keeps a remediation from taking down a
 * nodegroup. Pure.
 */
export const AUTO_HEAL_MAX_SHARE = 0.4;

export function nodesToReplace<N extends { nodegroup: string }>(overdue: N[], groupSize: (nodegroup: string) => number): N[] {
  const group = overdue[0]?.nodegroup;
  if (group === undefined) return [];
  return overdue.filter((n) => n.nodegroup === group).slice(0, Math.max(1, Math.floor(groupSize(group) * AUTO_HEAL_MAX_SHARE)));
}

export const autoHealReason = (nodes: { name: string; address: string; nodegroup: string }[], afterS: number) =>
  `auto-healing: replacing ${nodes.map((n) => `${n.name} (${n.address})`).join(', ')} of ${nodes[0]?.nodegroup}, NotReady for more than ${afterS} s`;

/**
 * The overdue nodes that may be replaced: a master only in a control plane of
 * several (`masters`) whose live members keep etcd's quorum, since the
 * replacement's etcd member joins through them. Pure.
 */
export function healable<N extends { role: string }>(overdue: N[], masters: number): N[] {
  const down = overdue.filter((n) => n.role === 'master').length;
  const quorumKept = masters > 1 && masters - down > masters / 2;
  return overdue.filter((n) => n.role !== 'master' || quorumKept);
}

/** Why nothing was replaced when only masters are overdue. */
export const mastersLeftReason = (masters: number, down: number) => (masters > 1
  ? `${down} of ${masters} masters are NotReady: etcd has lost its quorum and a replacement could not join; left to the operator`
  : 'only the lone master is NotReady: its replacement would be a new cluster; left to the operator');
