/**
 * A Kubernetes upgrade's plan, made once per operation (it lands in the
 * history): the masters in index order, then the workers of the nodegroup
 * (or of every nodegroup) in batches of max_batch_size, as Magnum's drivers
 * roll them. Nodes already on the version are skipped when they come up, so
 * the same version is a template switch on a cluster whose nodes all run it,
 * and takes back the nodes a failed upgrade left on a newer one.
 */
import type { ActivityDeps } from '../../../../lcm-activities/deps';
import { nodeRefOf } from '../../../../cluster/activities/access';
import { clusterById, clusterNodes } from '../../../../store/repos/clusters';
import { nodegroupsOf } from '../../../../store/repos/magnum/clusters';
import type { UpgradePlan } from '../contracts';
import { loadMagnum } from './cluster';

export interface UpgradeParams { version?: string; nodegroupId?: number; maxBatchSize?: number }

export function upgradeActivities(deps: ActivityDeps) {
  const { db } = deps;
  return {
    async planMagnumUpgrade({ clusterId }: { clusterId: string }): Promise<UpgradePlan> {
      const row = await loadMagnum(deps, clusterId);
      const p = row.opParams as UpgradeParams;
      const version = (p.version ?? '').replace(/^v/, '');
      const engine = await clusterById(db, clusterId);
      const group = p.nodegroupId === undefined ? undefined : (await nodegroupsOf(db, clusterId)).find((g) => g.id === p.nodegroupId);
      const nodes = (await clusterNodes(db, clusterId)).filter((n) => n.joinState === 'joined' && (!group || n.nodegroup === group.name));
      const from = engine?.settings.kubeVersion ?? version;
      if (!version) return { version, from, masters: [], workerBatches: [] };
      const byIndex = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name, 'en', { numeric: true });
      const masters = nodes.filter((n) => n.role === 'master').sort(byIndex).map(nodeRefOf);
      const workers = nodes.filter((n) => n.role !== 'master').sort(byIndex).map(nodeRefOf);
      const size = Math.max(1, p.maxBatchSize ?? 1);
      const workerBatches = Array.from({ length: Math.ceil(workers.length / size) }, (_, i) => workers.slice(i * size, (i + 1) * size));
      return { version, from, masters, workerBatches };
    },
  };
}
