/**
 * A node's Kubernetes version change (cluster/install/upgrade.ts), one step
 * at a time, and where a node stands: on a version when its kubelet reports
 * it (a master: its API server's static pod too), Ready and schedulable. A
 * change asked again skips the nodes that stand there (an upgrade resumes
 * where it stopped). The same steps take a node back down one minor version
 * (an upgrade's rollback): kubeadm downgrades by one minor as it upgrades.
 */
import YAML from 'yaml';
import type { ActivityDeps } from '../../lcm-activities/deps';
import { isNodeReady, KubeApiError, type KubeClient, nodeReadyStatus } from '../../infra/kubernetes';
import { kubeadmUpgrade, upgradeKubeadmPackage, upgradeKubeletPackage } from '../install/upgrade';
import type { UpgradeStep } from '../../model/cluster';
import { openCluster } from './access';
import { onNode } from './nodes';
import type { WaitCheck } from './types';

export interface UpgradeStepInput {
  clusterId: string;
  serverId: string;
  step: UpgradeStep;
  version: string;
  /** Set by workflows started before the mode was decided here; else `apply` on the master that moves the cluster's version. */
  mode?: 'apply' | 'node';
}

const tagged = (version: string) => `v${version.replace(/^v/, '')}`;

/** The image tag of the API server a master's kubelet runs (its mirror pod), if it has one. */
async function apiServerTag(kube: KubeClient, nodeName: string): Promise<string | undefined> {
  const pod = await kube.getPod('kube-system', `kube-apiserver-${nodeName}`);
  return pod?.spec?.containers?.[0]?.image?.split(':').pop();
}

/** `apply` where the cluster (kubeadm-config) is not yet on the version and the node is a master: the first master to move moves the cluster. */
async function kubeadmMode(kube: KubeClient, role: string, want: string): Promise<'apply' | 'node'> {
  if (role !== 'master') return 'node';
  const cm = await kube.getConfigMap('kube-system', 'kubeadm-config');
  const cluster = YAML.parse(cm?.data?.ClusterConfiguration ?? '') as { kubernetesVersion?: string } | null;
  return cluster?.kubernetesVersion === want ? 'node' : 'apply';
}

export function upgradeActivities(deps: ActivityDeps) {
  const pollMaxMs = deps.cfg.cluster.pollMaxMs;
  return {
    async nodeOnVersion({ clusterId, serverId, version }: { clusterId: string; serverId: string; version: string }): Promise<WaitCheck> {
      const c = await openCluster(deps, clusterId);
      const node = c.node(serverId);
      const want = tagged(version);
      try {
        const n = await c.kube().getNode(node.name);
        if (!n) return { ok: false, detail: `no Node ${node.name}` };
        const kubelet = n.status?.nodeInfo?.kubeletVersion;
        const apiServer = node.role === 'master' ? await apiServerTag(c.kube(), node.name) : want;
        const ok = kubelet === want && apiServer === want && isNodeReady(n) && !n.spec?.unschedulable;
        const detail = `kubelet ${kubelet ?? 'unknown'}${node.role === 'master' ? `, kube-apiserver ${apiServer ?? 'unknown'}` : ''}, Ready=${nodeReadyStatus(n)}${n.spec?.unschedulable ? ', cordoned' : ''}`;
        return { ok, detail, pollMaxMs };
      } catch (e) {
        return { ok: false, detail: (e as Error).message.slice(0, 200), pollMaxMs };
      }
    },

    /** One step; the drain is one pass of evictions (not ok until the node is empty: the workflow calls again). */
    async upgradeNodeStep({ clusterId, serverId, step, version, mode }: UpgradeStepInput): Promise<WaitCheck> {
      const c = await openCluster(deps, clusterId);
      const node = c.node(serverId);
      const install = { settings: c.cluster.settings, secrets: c.secrets };
      const api = async (fn: () => Promise<WaitCheck>): Promise<WaitCheck> => {
        try {
          return { ...(await fn()), pollMaxMs };
        } catch (e) {
          if (e instanceof KubeApiError) return { ok: false, detail: `${step}: ${e.message.slice(0, 200)}`, pollMaxMs };
          throw e;
        }
      };
      switch (step) {
        case 'kubeadm package': await onNode(c, node, step, (s) => upgradeKubeadmPackage(s, install, version)); return { ok: true };
        case 'kubeadm upgrade': {
          const how = mode ?? await kubeadmMode(c.kube(), node.role, tagged(version));
          await onNode(c, node, `kubeadm upgrade ${how}`, (s) => kubeadmUpgrade(s, how, version));
          return { ok: true };
        }
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
