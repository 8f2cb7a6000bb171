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
