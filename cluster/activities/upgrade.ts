/**
 * A node's Kubernetes upgrade (cluster/install/upgrade.ts), one step at a
 * time, and where a node stands: on the target version when its kubelet
 * reports it, Ready and schedulable. An upgrade asked again skips the nodes
 * that stand there (it resumes where it stopped).
 */
import type { ActivityDeps } from '../../activities/deps';
import { isNodeReady, KubeApiError, nodeReadyStatus } from '../../infra/kubernetes';
import { kubeadmUpgrade, upgradeKubeadmPackage, upgradeKubeletPackage } from '../install/upgrade';
import type { UpgradeStep } from '../model';
import { openCluster } from './access';
import { onNode } from './nodes';
import type { WaitCheck } from './types';

export interface UpgradeStepInput { clusterId: string; serverId: string; step: UpgradeStep; version: string; mode: 'apply' | 'node' }

export function upgradeActivities(deps: ActivityDeps) {
  return {
    async nodeOnVersion({ clusterId, serverId, version }: { clusterId: string; serverId: string; version: string }): Promise<WaitCheck> {
      const c = await openCluster(deps, clusterId);
      const node = c.node(serverId);
      const want = `v${version.replace(/^v/, '')}`;
      try {
        const n = await c.kube().getNode(node.name);
        if (!n) return { ok: false, detail: `no Node ${node.name}` };
        const kubelet = n.status?.nodeInfo?.kubeletVersion;
        const ok = kubelet === want && isNodeReady(n) && !n.spec?.unschedulable;
        return { ok, detail: `kubelet ${kubelet ?? 'unknown'}, Ready=${nodeReadyStatus(n)}${n.spec?.unschedulable ? ', cordoned' : ''}`, pollMaxMs: deps.cfg.cluster.pollMaxMs };
      } catch (e) {
        return { ok: false, detail: (e as Error).message.slice(0, 200), pollMaxMs: deps.cfg.cluster.pollMaxMs };
      }
    },

    /** One step; the drain is one pass of evictions (not ok until the node is empty: the workflow calls again). */
    async upgradeNodeStep({ clusterId, serverId, step, version, mode }: UpgradeStepInput): Promise<WaitCheck> {
      const c = await openCluster(deps, clusterId);
      const node = c.node(serverId);
      const install = { settings: c.cluster.settings, secrets: c.secrets };
      const api = async (fn: () => Promise<WaitCheck>): Promise<WaitCheck> => {
        try {
          return { ...(await fn()), pollMaxMs: deps.cfg.cluster.pollMaxMs };
        } catch (e) {
          if (e instanceof KubeApiError) return { ok: false, detail: `${step}: ${e.message.slice(0, 200)}`, pollMaxMs: deps.cfg.cluster.pollMaxMs };
          throw e;
        }
      };
      switch (step) {
        case 'kubeadm package': await onNode(c, node, step, (s) => upgradeKubeadmPackage(s, install, version)); return { ok: true };
        case 'kubeadm upgrade': await onNode(c, node, `kubeadm upgrade ${mode}`, (s) => kubeadmUpgrade(s, mode, version)); return { ok: true };
        case 'drain': return api(async () => {
          const r = await c.kube().drainNode(node.name);
          return { ok: r.done, detail: r.done ? undefined : `${r.remaining.length} pods still on the node` };
        });
        case 'kubelet package': await onNode(c, node, step, (s) => upgradeKubeletPackage(s, install, version)); return { ok: true };
        case 'uncordon': return api(async () => { await c.kube().uncordonNode(node.name); return { ok: true }; });
      }
    },
  };
}
