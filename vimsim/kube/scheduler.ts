/**
 * A simulated kube-scheduler, run by the kubelet from its static pod manifest:
 * it reads its kubeconfig (--kubeconfig) at start, holds the leader election
 * Lease kube-system/kube-scheduler with its own certificate, and binds
 * pending pods to a Ready, schedulable node whose taints they tolerate and
 * whose labels match their nodeSelector (the one with the fewest pods);
 * the node's simulated kubelet then reports them Running.
 */
import { KubeClient, isNotFound, microTime } from './client';
import { credentialsFrom } from './kubeconfig';
import type { NodeParts } from './node-parts';
import { hostResolver } from './resolve';
import type { SimComponent } from './node-parts';

const RENEW_MS = 1_000;
const LEASE = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler';

interface Toleration { key?: string; operator?: string; value?: string; effect?: string }
interface Taint { key: string; value?: string; effect: string }
interface PodObj { metadata: { name: string; namespace: string; deletionTimestamp?: string }; spec: { nodeName?: string; schedulerName?: string; nodeSelector?: Record<string, string>; tolerations?: Toleration[] } }
interface NodeObj { metadata: { name: string; labels?: Record<string, string> }; spec?: { unschedulable?: boolean; taints?: Taint[] }; status?: { conditions?: { type: string; status: string }[] } }

function tolerates(tolerations: Toleration[], t: Taint): boolean {
  return tolerations.some((x) => (x.effect === undefined || x.effect === '' || x.effect === t.effect) && (x.operator === 'Exists' ? !x.key || x.key === t.key : x.key === t.key && (x.value ?? '') === (t.value ?? '')));
}

export class KubeScheduler implements SimComponent {
  lastError?: string;
  private client?: KubeClient;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly node: NodeParts,
    private readonly flags: Map<string, string>,
  ) {}

  start(): void {
    void this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.client?.close();
  }

  private async schedule(): Promise<void> {
    const c = this.client!;
    const pods = (await c.get<{ items: PodObj[] }>('/api/v1/pods')).items;
    const pending = pods.filter((p) => !p.spec.nodeName && !p.metadata.deletionTimestamp && (p.spec.schedulerName ?? 'default-scheduler') === 'default-scheduler');
    if (pending.length === 0) return;
    const nodes = (await c.get<{ items: NodeObj[] }>('/api/v1/nodes')).items.filter((n) => !n.spec?.unschedulable && n.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True'));
    const load = new Map(nodes.map((n) => [n.metadata.name, pods.filter((p) => p.spec.nodeName === n.metadata.name).length]));
    for (const pod of pending) {
      const fits = nodes.filter((n) => (n.spec?.taints ?? []).every((t) => t.effect === 'PreferNoSchedule' || tolerates(pod.spec.tolerations ?? [], t))
        && Object.entries(pod.spec.nodeSelector ?? {}).every(([k, v]) => n.metadata.labels?.[k] === v));
      if (fits.length === 0) continue;
      const target = fits.sort((a, b) => load.get(a.metadata.name)! - load.get(b.metadata.name)!)[0].metadata.name;
      await c.post(`/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: pod.metadata.name }, target: { apiVersion: 'v1', kind: 'Node', name: target } });
      load.set(target, load.get(target)! + 1);
    }
  }

  private async tick(): Promise<void> {
    try {
      if (!this.client) {
        const file = this.flags.get('kubeconfig') ?? this.flags.get('authentication-kubeconfig');
        if (!file) throw new Error('no --kubeconfig: the scheduler cannot reach the API server');
        this.client = new KubeClient(credentialsFrom(this.node.host.fs, file), { resolve: hostResolver(this.node.host) });
      }
      const spec = { holderIdentity: `${this.node.host.hostname}_${this.node.host.serverId}`, leaseDurationSeconds: 15, renewTime: microTime() };
      try {
        const lease = await this.client.get<{ spec: object }>(LEASE);
        await this.client.put(LEASE, { ...lease, spec: { ...lease.spec, ...spec } });
      } catch (err) {
        if (!isNotFound(err)) throw err;
        await this.client.post('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'kube-scheduler', namespace: 'kube-system' }, spec: { ...spec, acquireTime: spec.renewTime } });
      }
      await this.schedule();
      this.lastError = undefined;
    } catch (err) {
      this.lastError = (err as Error).message;
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), RENEW_MS);
    this.timer.unref();
  }
}
