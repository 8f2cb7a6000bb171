/**
 * A simulated kube-scheduler, run by the kubelet from its static pod manifest:
 * it reads its kubeconfig (--kubeconfig) at start and holds the leader election
 * Lease kube-system/kube-scheduler, as the real one does, with its own
 * certificate. Pods are not scheduled (no pod runs on the simulated nodes).
 */
import { KubeClient, isNotFound, microTime } from './client';
import { credentialsFrom } from './kubeconfig';
import type { KubeNode } from './node';
import { hostResolver } from './resolve';
import type { SimComponent } from './static-pods';

const RENEW_MS = 2_000;
const LEASE = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler';

export class KubeScheduler implements SimComponent {
  lastError?: string;
  private client?: KubeClient;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly node: KubeNode,
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
      this.lastError = undefined;
    } catch (err) {
      this.lastError = (err as Error).message;
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), RENEW_MS);
    this.timer.unref();
  }
}
