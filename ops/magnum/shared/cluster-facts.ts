/**
 * A Magnum cluster as both the API and the CADF notifications describe it:
 * its row and nodegroups, plus what the cluster engine knows (API address,
 * nodes, health) from its `clusters` row of the same id, once made.
 */
import { clusterById, clusterNodes, type ClusterNodeRow, type ClusterRow } from '../../../store/repos/clusters';
import { nodegroupsOf, type MagnumClusterRow, type NodegroupRow } from '../../../store/repos/magnum/clusters';
import type { SqlStore } from '../../../store/sql-store';
import { isFailed } from '../../../model/magnum/status';

export interface ClusterFacts {
  row: MagnumClusterRow;
  nodegroups: NodegroupRow[];
  engine?: ClusterRow;
  nodes: ClusterNodeRow[];
}

export async function clusterFacts(db: SqlStore, row: MagnumClusterRow): Promise<ClusterFacts> {
  const [nodegroups, engine, nodes] = await Promise.all([nodegroupsOf(db, row.id), clusterById(db, row.id), clusterNodes(db, row.id)]);
  return { row, nodegroups, engine, nodes };
}

export const nodeCountOf = (f: ClusterFacts) => f.nodegroups.filter((g) => g.role !== 'master').reduce((n, g) => n + g.nodeCount, 0);
export const masterCountOf = (f: ClusterFacts) => f.nodegroups.filter((g) => g.role === 'master').reduce((n, g) => n + g.nodeCount, 0);
export const masterAddresses = (f: ClusterFacts) => f.nodes.filter((n) => n.role === 'master').map((n) => n.address).sort();
export const nodeAddresses = (f: ClusterFacts) => f.nodes.filter((n) => n.role !== 'master').map((n) => n.address).sort();
export const addressesOfGroup = (f: ClusterFacts, g: NodegroupRow) => f.nodes.filter((n) => n.nodegroup === g.name).map((n) => n.address).sort();

/** Magnum's faults: each failed nodegroup's reason, shown while the cluster is *_FAILED. */
export function faultsOf(f: ClusterFacts): Record<string, string> | undefined {
  if (!isFailed(f.row.status)) return undefined;
  return Object.fromEntries(f.nodegroups.filter((g) => isFailed(g.status)).map((g) => [g.name, g.statusReason ?? '']));
}

export const coeVersionOf = (f: ClusterFacts) => (f.engine ? `v${f.engine.settings.kubeVersion}` : null);
