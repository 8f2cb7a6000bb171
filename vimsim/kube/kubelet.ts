/**
 * The API side of a simulated kubelet (what kwok does for fake nodes, done
 * with the node's own credentials): with /etc/kubernetes/kubelet.conf it uses
 * the client certificate that file names; with only bootstrap-kubelet.conf it
 * does the TLS bootstrap first (a CSR for `system:node:<name>` signed by
 * kubernetes.io/kube-apiserver-client-kubelet, the certificate kept in
 * /var/lib/kubelet/pki/kubelet-client-current.pem, kubelet.conf written to
 * use it). Then it registers its Node once, renews its Lease in
 * kube-node-lease every nodeLeaseDurationSeconds/4 (10 s) and reports Ready.
 * A refused certificate or an untrusted server simply makes the calls fail,
 * so the Lease goes stale and the controller-manager marks the node NotReady.
 */
import { KubeApiError, KubeClient, isNotFound, metaTime, microTime } from './client';
import { buildKubeconfig, credentialsFrom } from './kubeconfig';
import { BOOTSTRAP_KUBECONFIG, KUBELET_KUBECONFIG, type NodeParts } from './node-parts';
import { newCsr, newPrivateKey, privateKeyPem } from './pki';
import { PodSync } from './pod-sync';
import { hostResolver } from './resolve';
import { installedKubeVersion } from '../ssh/host/kube-packages';

const ROOT = { name: 'root', uid: 0, home: '/root' };
export const KUBELET_PKI = '/var/lib/kubelet/pki';
export const KUBELET_CLIENT_CURRENT = `${KUBELET_PKI}/kubelet-client-current.pem`;
const STATUS_REPORT_MS = 5 * 60_000;
const CONDITIONS: [string, string, string][] = [
  ['MemoryPressure', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
  ['DiskPressure', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
  ['PIDPressure', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
  ['Ready', 'KubeletReady', 'kubelet is posting ready status'],
];

export class KubeletAgent {
  readonly nodeName: string;
  private readonly flags: Map<string, string>;
  private readonly renewMs: number;
  private readonly leaseSeconds: number;
  /** The kubelet package's version when this kubelet started: an upgraded package counts after a restart. */
  readonly version: string;
  private client?: KubeClient;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private lease?: { metadata: { resourceVersion: string }; spec: Record<string, unknown> };
  private nodeUid?: string;
  private lastReport = 0;
  private readonly podSync: PodSync;
  registered = false;
  standalone = false;
  lastError?: string;
  lastRenew?: string;

  constructor(private readonly node: NodeParts) {
    const s = node.settings();
    this.flags = s.flags;
    this.nodeName = (s.flags.get('hostname-override') ?? node.host.hostname).toLowerCase();
    this.leaseSeconds = s.nodeLeaseDurationSeconds;
    this.renewMs = node.runtime.settings.leaseRenewMs ?? s.nodeLeaseDurationSeconds * 250;
    this.podSync = new PodSync(node, this.nodeName);
    this.version = installedKubeVersion(node.host, 'kubelet') ?? 'v1.37.2';
  }

  start(): void {
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.client?.close();
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      this.client ??= await this.connect();
      if (!this.client) {
        this.standalone = true; // no kubeconfig: static pods only, as a standalone kubelet
        return;
      }
      if (!this.registered) await this.register();
      await this.renewLease();
      await this.reportStatus();
      await this.podSync.sync(this.client, this.nodeUid);
      this.lastError = undefined;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (message !== this.lastError) this.node.log.info({ server: this.node.host.serverId, node: this.nodeName, err: message }, 'kubelet: API call failed');
      this.lastError = message;
    } finally {
      if (!this.standalone) this.schedule(this.renewMs);
    }
  }

  private newClient(file: string): KubeClient {
    return new KubeClient(credentialsFrom(this.node.host.fs, file), { resolve: hostResolver(this.node.host) });
  }

  private async connect(): Promise<KubeClient | undefined> {
    const memfs = this.node.host.fs;
    if (memfs.isFile(KUBELET_KUBECONFIG)) return this.newClient(KUBELET_KUBECONFIG);
    if (!memfs.isFile(BOOTSTRAP_KUBECONFIG)) return undefined;
    await this.bootstrap();
    return this.newClient(KUBELET_KUBECONFIG);
  }

  /** TLS bootstrap with the bootstrap token: CSR, wait for the signed certificate, kubelet.conf. */
  private async bootstrap(): Promise<void> {
    const memfs = this.node.host.fs;
    const boot = credentialsFrom(memfs, BOOTSTRAP_KUBECONFIG);
    const client = new KubeClient(boot, { resolve: hostResolver(this.node.host) });
    try {
      const key = await newPrivateKey('ECDSA-P256');
      const request = await newCsr(key, { commonName: `system:node:${this.nodeName}`, organizations: ['system:nodes'] });
      const csr = await client.post<{ metadata: { name: string } }>('/apis/certificates.k8s.io/v1/certificatesigningrequests', {
        apiVersion: 'certificates.k8s.io/v1',
        kind: 'CertificateSigningRequest',
        metadata: { generateName: 'csr-' },
        spec: { request: Buffer.from(request).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'] },
      });
      const path = `/apis/certificates.k8s.io/v1/certificatesigningrequests/${csr.metadata.name}`;
      for (;;) {
        if (this.stopped) throw new Error('kubelet stopped during the TLS bootstrap');
        const current = await client.get<{ status?: { certificate?: string; conditions?: { type: string; message?: string }[] } }>(path);
        const refused = current.status?.conditions?.find((c) => c.type === 'Denied' || c.type === 'Failed');
        if (refused) throw new Error(`certificate signing request ${csr.metadata.name} is ${refused.type.toLowerCase()}: ${refused.message ?? ''}`);
        if (current.status?.certificate) {
          const pem = Buffer.from(current.status.certificate, 'base64').toString('utf8') + privateKeyPem(key);
          const stamp = new Date().toISOString().replace(/[T:]/g, '-').replace(/\..*$/, '');
          memfs.mkdir(KUBELET_PKI, ROOT, { parents: true, mode: 0o755 });
          memfs.writeFile(`${KUBELET_PKI}/kubelet-client-${stamp}.pem`, pem, ROOT, { mode: 0o600 });
          // a symlink on a real node; the simulated filesystem has none
          memfs.writeFile(KUBELET_CLIENT_CURRENT, pem, ROOT, { mode: 0o600 });
          memfs.writeFile(KUBELET_KUBECONFIG, buildKubeconfig({
            clusterName: 'default-cluster', contextName: 'default-context', server: boot.server, caPem: boot.ca ?? '',
            userName: 'default-auth', certFile: KUBELET_CLIENT_CURRENT, keyFile: KUBELET_CLIENT_CURRENT,
          }), ROOT, { mode: 0o600 });
          this.node.log.info({ server: this.node.host.serverId, node: this.nodeName, csr: csr.metadata.name }, 'kubelet: TLS bootstrap done');
          return;
        }
        await new Promise((r) => setTimeout(r, 300));
      }
    } finally {
      client.close();
    }
  }

  private nodeObject() {
    const cap = this.node.runtime.capacityOf(this.node.host.serverId);
    const labels: Record<string, string> = {
      'beta.kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64', 'kubernetes.io/hostname': this.nodeName, 'kubernetes.io/os': 'linux',
    };
    for (const kv of (this.flags.get('node-labels') ?? '').split(',').filter(Boolean)) {
      const [k, v = ''] = kv.split('=');
      labels[k] = v;
    }
    const taints = (this.flags.get('register-with-taints') ?? '').split(',').filter(Boolean).map((t) => {
      const [kv, effect] = t.split(':');
      const [key, value] = kv.split('=');
      return { key, ...(value ? { value } : {}), effect };
    });
    const resources = { cpu: String(cap.vcpus), memory: `${cap.ramMb * 1024}Ki`, 'ephemeral-storage': `${cap.diskGb * 1024 * 1024}Ki`, pods: '110' };
    return {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: this.nodeName, labels, annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' } },
      spec: { providerID: `openstack:///${this.node.host.serverId}`, ...(taints.length ? { taints } : {}) },
      status: {
        addresses: [{ type: 'InternalIP', address: this.flags.get('node-ip') ?? this.node.host.address }, { type: 'Hostname', address: this.nodeName }],
        capacity: resources,
        allocatable: resources,
        conditions: this.conditions(),
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: {
          architecture: 'amd64', bootID: this.node.host.bootedAt, containerRuntimeVersion: 'containerd://1.7.24', kernelVersion: '5.4.0-169-generic',
          kubeProxyVersion: '', kubeletVersion: this.version, machineID: this.node.host.serverId.replace(/-/g, ''), operatingSystem: 'linux',
          osImage: 'Ubuntu 20.04.6 LTS', systemUUID: this.node.host.serverId,
        },
      },
    };
  }

  private conditions() {
    const now = metaTime();
    return CONDITIONS.map(([type, reason, message]) => ({
      type, status: type === 'Ready' ? 'True' : 'False', reason, message, lastHeartbeatTime: now, lastTransitionTime: now,
    }));
  }

  private async register(): Promise<void> {
    try {
      const created = await this.client!.post<{ metadata: { uid: string } }>('/api/v1/nodes', this.nodeObject());
      this.nodeUid = created.metadata.uid;
      this.node.log.info({ server: this.node.host.serverId, node: this.nodeName }, 'kubelet: node registered');
    } catch (err) {
      if (!(err instanceof KubeApiError) || err.reason !== 'AlreadyExists') throw err;
      // the Node exists (a restarted kubelet, a rejoin): take it over, with this kubelet's nodeInfo (its version)
      const existing = await this.client!.get<{ metadata: { uid: string } }>(`/api/v1/nodes/${this.nodeName}`);
      this.nodeUid = existing.metadata.uid;
      await this.client!.patch(`/api/v1/nodes/${this.nodeName}/status`, { status: { nodeInfo: this.nodeObject().status.nodeInfo } });
    }
    this.registered = true;
    this.lastReport = Date.now();
  }

  private async renewLease(): Promise<void> {
    const path = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${this.nodeName}`;
    const spec = { holderIdentity: this.nodeName, leaseDurationSeconds: this.leaseSeconds, renewTime: microTime() };
    if (!this.lease) {
      try {
        this.lease = await this.client!.get(path);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        this.lease = await this.client!.post('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', {
          apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
          metadata: { name: this.nodeName, namespace: 'kube-node-lease', ...(this.nodeUid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.nodeName, uid: this.nodeUid }] } : {}) },
          spec,
        });
        this.lastRenew = spec.renewTime;
        return;
      }
    }
    try {
      this.lease = await this.client!.put(path, { ...this.lease, spec: { ...this.lease!.spec, ...spec } });
      this.lastRenew = spec.renewTime;
    } catch (err) {
      this.lease = undefined; // a conflict or a deleted lease: read it again next time
      throw err;
    }
  }

  /** Ready=True with a fresh heartbeat when the Node says otherwise (the controller-manager marked it) or the report is due. */
  private async reportStatus(): Promise<void> {
    const current = await this.client!.get<{ status?: { conditions?: { type: string; status: string }[] } }>(`/api/v1/nodes/${this.nodeName}`);
    const ready = current.status?.conditions?.find((c) => c.type === 'Ready');
    if (ready?.status === 'True' && Date.now() - this.lastReport < STATUS_REPORT_MS) return;
    await this.client!.patch(`/api/v1/nodes/${this.nodeName}/status`, { status: { conditions: this.conditions() } });
    this.lastReport = Date.now();
  }

  view() {
    return { nodeName: this.nodeName, registered: this.registered, standalone: this.standalone, lastRenew: this.lastRenew, lastError: this.lastError, renewMs: this.renewMs };
  }
}
