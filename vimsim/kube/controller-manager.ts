/**
 * A simulated kube-controller-manager, run by the kubelet from its static pod
 * manifest. It reads what the real one reads at start: its kubeconfig
 * (--kubeconfig) and the cluster signing CA (--cluster-signing-cert-file /
 * --cluster-signing-key-file), and, like the real one with
 * --use-service-account-credentials, acts through the service accounts of its
 * controllers (TokenRequest with its own certificate):
 * - certificate-controller: approves kubelet client CSRs whose requester may
 *   create certificatesigningrequests/nodeclient (or selfnodeclient), found by
 *   a SubjectAccessReview, and signs approved ones
 *   (kubernetes.io/kube-apiserver-client-kubelet) with the signing CA;
 * - node-controller: every --node-monitor-period (5s) marks a Node whose Lease
 *   is older than --node-monitor-grace-period (40s) NotReady (Unknown, tainted
 *   unreachable), and, as the cloud's node lifecycle controller, deletes the
 *   Node of a server that no longer exists (a stopped one is tainted shutdown);
 *   the `node.kubernetes.io/not-ready` taint the API server puts on a new Node
 *   goes once it is Ready (TaintNodesByCondition).
 * - serviceaccount controller: a `default` ServiceAccount in every namespace
 *   (the API admits no pod in a namespace without it).
 */
import type { KeyObject } from 'node:crypto';
import { KubeApiError, KubeClient, isNotFound, metaTime, microTime } from './client';
import { parseDuration } from '@nfv-orchestrator/lib/go-duration';
import { credentialsFrom, type KubeCredentials } from './kubeconfig';
import type { NodeParts } from './node-parts';
import { certPem, issueCert, parseCert, parseCsr, parsePrivateKey, type Issuer } from './pki';
import { hostResolver } from './resolve';
import type { SimComponent } from './node-parts';

const ROOT = { name: 'root', uid: 0, home: '/root' };
const KUBELET_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
const CSR_API = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const CSR_POLL_MS = 500;
const UNREACHABLE = 'node.kubernetes.io/unreachable';
const NOT_READY = 'node.kubernetes.io/not-ready';
const SHUTDOWN = 'node.cloudprovider.kubernetes.io/shutdown';

interface Csr {
  metadata: { name: string; resourceVersion: string };
  spec: { request: string; signerName: string; usages?: string[]; username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]>; expirationSeconds?: number };
  status?: { certificate?: string; conditions?: { type: string; status: string }[] };
}
interface NodeObj {
  metadata: { name: string; creationTimestamp: string };
  spec?: { providerID?: string; taints?: { key: string; value?: string; effect: string; timeAdded?: string }[] };
  status?: { conditions?: { type: string; status: string; lastHeartbeatTime?: string }[] };
}

export class KubeControllerManager implements SimComponent {
  lastError?: string;
  private stopped = false;
  private timers: NodeJS.Timeout[] = [];
  private own?: KubeClient;
  private creds?: KubeCredentials;
  private signer?: Issuer;
  private readonly sa = new Map<string, { client: KubeClient; until: number }>();
  private readonly grace: number;
  private readonly monitorPeriod: number;
  private readonly signingDuration: number;
  private started = false;

  constructor(
    private readonly node: NodeParts,
    private readonly flags: Map<string, string>,
  ) {
    this.grace = parseDuration(flags.get('node-monitor-grace-period')) ?? 40_000;
    this.monitorPeriod = parseDuration(flags.get('node-monitor-period')) ?? 5_000;
    this.signingDuration = parseDuration(flags.get('cluster-signing-duration')) ?? 8760 * 3_600_000;
  }

  start(): void {
    this.loop(() => this.csrs(), CSR_POLL_MS);
    this.loop(() => this.monitorNodes(), this.monitorPeriod);
    this.loop(() => this.serviceAccounts(), 2000);
  }

  private async serviceAccounts(): Promise<void> {
    const namespaces = (await this.own!.get<{ items: { metadata: { name: string }; status?: { phase?: string } }[] }>('/api/v1/namespaces')).items;
    const accounts = (await this.own!.get<{ items: { metadata: { name: string; namespace: string } }[] }>('/api/v1/serviceaccounts?fieldSelector=metadata.name%3Ddefault')).items;
    const have = new Set(accounts.map((a) => a.metadata.namespace));
    for (const ns of namespaces) {
      if (have.has(ns.metadata.name) || ns.status?.phase === 'Terminating') continue;
      try {
        await this.own!.post(`/api/v1/namespaces/${ns.metadata.name}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: ns.metadata.name } });
      } catch (err) {
        if (!(err instanceof KubeApiError) || err.reason !== 'AlreadyExists') throw err;
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.forEach(clearTimeout);
    this.own?.close();
    for (const { client } of this.sa.values()) client.close();
  }

  private loop(fn: () => Promise<void>, every: number): void {
    const run = async () => {
      if (this.stopped) return;
      try {
        this.init();
        await fn();
        this.lastError = undefined;
      } catch (err) {
        const message = (err as Error).message;
        if (message !== this.lastError) this.node.log.info({ server: this.node.host.serverId, err: message }, 'kube-controller-manager: failed');
        this.lastError = message;
      }
      if (!this.stopped) {
        const t = setTimeout(() => void run(), every);
        t.unref();
        this.timers.push(t);
        if (this.timers.length > 8) this.timers.splice(0, this.timers.length - 8);
      }
    };
    void run();
  }

  /** What the process reads when it starts (a failure here is a crash, retried). */
  private init(): void {
    if (this.started) return;
    const memfs = this.node.host.fs;
    const kubeconfig = this.flags.get('kubeconfig') ?? this.flags.get('authentication-kubeconfig');
    if (!kubeconfig) throw new Error('no --kubeconfig: the controller-manager cannot reach the API server');
    this.creds = credentialsFrom(memfs, kubeconfig);
    this.own = new KubeClient(this.creds, { resolve: hostResolver(this.node.host) });
    const certFile = this.flags.get('cluster-signing-cert-file');
    const keyFile = this.flags.get('cluster-signing-key-file');
    if (certFile && keyFile && memfs.isFile(certFile) && memfs.isFile(keyFile)) {
      this.signer = { cert: parseCert(memfs.readFile(certFile, ROOT)), key: parsePrivateKey(memfs.readFile(keyFile, ROOT)) as KeyObject };
    }
    this.started = true;
  }

  /** A client acting as kube-system/<name> (the controller's own service account). */
  private async as(name: string): Promise<KubeClient> {
    const cached = this.sa.get(name);
    if (cached && cached.until > Date.now()) return cached.client;
    cached?.client.close();
    try {
      await this.own!.post('/api/v1/namespaces/kube-system/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'kube-system' } });
    } catch (err) {
      if (!(err instanceof KubeApiError) || err.reason !== 'AlreadyExists') throw err;
    }
    const tr = await this.own!.post<{ status: { token: string } }>(`/api/v1/namespaces/kube-system/serviceaccounts/${name}/token`, {
      apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 },
    });
    const client = new KubeClient({ server: this.creds!.server, ca: this.creds!.ca, token: tr.status.token }, { resolve: hostResolver(this.node.host) });
    this.sa.set(name, { client, until: Date.now() + 50 * 60_000 });
    return client;
  }

  /** A 401 with a service account token (keys rotated): get a new token next time. */
  private async withSa<T>(name: string, fn: (c: KubeClient) => Promise<T>): Promise<T> {
    try {
      return await fn(await this.as(name));
    } catch (err) {
      if (err instanceof KubeApiError && err.status === 401) this.sa.delete(name);
      throw err;
    }
  }

  private async csrs(): Promise<void> {
    await this.withSa('certificate-controller', async (c) => {
      const list = await c.get<{ items: Csr[] }>(CSR_API);
      for (const csr of list.items) {
        if (csr.spec.signerName !== KUBELET_SIGNER || csr.status?.certificate) continue;
        const conditions = csr.status?.conditions ?? [];
        if (conditions.some((x) => x.type === 'Denied' || x.type === 'Failed')) continue;
        let current = csr;
        if (!conditions.some((x) => x.type === 'Approved')) {
          const approved = await this.approve(c, csr);
          if (!approved) continue;
          current = approved;
        }
        if (this.signer) await this.sign(c, current);
      }
    });
  }

  private async approve(c: KubeClient, csr: Csr): Promise<Csr | undefined> {
    const parsed = await parseCsr(Buffer.from(csr.spec.request, 'base64').toString('utf8'));
    const isNodeClient = parsed.organizations.length === 1 && parsed.organizations[0] === 'system:nodes' && parsed.commonName.startsWith('system:node:');
    if (!isNodeClient || !parsed.validSignature) return undefined;
    const subresource = csr.spec.username === parsed.commonName ? 'selfnodeclient' : 'nodeclient';
    const sar = await c.post<{ status: { allowed: boolean } }>('/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview',
      spec: { user: csr.spec.username, uid: csr.spec.uid, groups: csr.spec.groups, extra: csr.spec.extra, resourceAttributes: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'create', subresource } },
    });
    if (!sar.status.allowed) return undefined;
    const message = subresource === 'nodeclient' ? 'Auto approving kubelet client certificate after SubjectAccessReview.' : 'Auto approving self kubelet client certificate after SubjectAccessReview.';
    return c.put<Csr>(`${CSR_API}/${csr.metadata.name}/approval`, {
      ...csr,
      status: { ...csr.status, conditions: [...(csr.status?.conditions ?? []), { type: 'Approved', status: 'True', reason: 'AutoApproved', message, lastUpdateTime: metaTime(), lastTransitionTime: metaTime() }] },
    });
  }

  private async sign(c: KubeClient, csr: Csr): Promise<void> {
    const parsed = await parseCsr(Buffer.from(csr.spec.request, 'base64').toString('utf8'));
    const ttl = Math.min(this.signingDuration, (csr.spec.expirationSeconds ?? Infinity) * 1000);
    const cert = await issueCert(
      { commonName: parsed.commonName, organizations: parsed.organizations, usages: ['client'], notBefore: new Date(Date.now() - 5 * 60_000), notAfter: new Date(Date.now() + ttl) },
      parsed.publicKey,
      this.signer,
    );
    await c.put(`${CSR_API}/${csr.metadata.name}/status`, { ...csr, status: { ...csr.status, certificate: Buffer.from(certPem(cert)).toString('base64') } });
  }

  private async monitorNodes(): Promise<void> {
    await this.withSa('node-controller', async (c) => {
      const nodes = (await c.get<{ items: NodeObj[] }>('/api/v1/nodes')).items;
      // the Leases through the controller manager's own identity, as its shared informers read them: the
      // node-controller role may not list Leases (v1.36's bootstrap policy has no such rule)
      const leases = (await this.own!.get<{ items: { metadata: { name: string }; spec: { renewTime?: string } }[] }>('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases')).items;
      const renewed = new Map(leases.map((l) => [l.metadata.name, l.spec.renewTime ? Date.parse(l.spec.renewTime) : 0]));
      const now = Date.now();
      for (const n of nodes) {
        const ready = n.status?.conditions?.find((x) => x.type === 'Ready');
        const probe = renewed.get(n.metadata.name) ?? Date.parse(n.metadata.creationTimestamp);
        const stale = now - probe > this.grace;
        if (stale && ready?.status !== 'Unknown') await this.markUnknown(c, n);
        const taints = n.spec?.taints ?? [];
        let wanted = taints;
        if (stale || ready?.status === 'Unknown') {
          if (!taints.some((t) => t.key === UNREACHABLE)) wanted = [...wanted, { key: UNREACHABLE, effect: 'NoSchedule' }, { key: UNREACHABLE, effect: 'NoExecute', timeAdded: metaTime() }];
        } else if (ready?.status === 'True') wanted = wanted.filter((t) => t.key !== UNREACHABLE && t.key !== NOT_READY);
        // the cloud's node lifecycle controller: a Node whose server is gone goes too
        const serverId = /^openstack:\/\/\/(.+)$/.exec(n.spec?.providerID ?? '')?.[1];
        if (serverId && (stale || ready?.status !== 'True')) {
          const state = this.node.runtime.cloud.serverState(serverId);
          if (state === 'gone') {
            try {
              await c.delete(`/api/v1/nodes/${n.metadata.name}`);
              this.node.log.info({ node: n.metadata.name, server: serverId }, 'kube-controller-manager: deleted the Node of a server that no longer exists');
            } catch (err) {
              if (!isNotFound(err)) throw err;
            }
            continue;
          }
          if (state === 'stopped' && !wanted.some((t) => t.key === SHUTDOWN)) wanted = [...wanted, { key: SHUTDOWN, effect: 'NoSchedule' }];
        }
        if (serverId && this.node.runtime.cloud.serverState(serverId) === 'up') wanted = wanted.filter((t) => t.key !== SHUTDOWN);
        if (JSON.stringify(wanted) !== JSON.stringify(taints)) await c.patch(`/api/v1/nodes/${n.metadata.name}`, { spec: { taints: wanted } });
      }
    });
    await this.holdLeaderLease();
  }

  private async markUnknown(c: KubeClient, n: NodeObj): Promise<void> {
    const at = metaTime();
    const conditions = ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'].map((type) => ({
      type, status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.',
      lastHeartbeatTime: n.status?.conditions?.find((x) => x.type === type)?.lastHeartbeatTime ?? at, lastTransitionTime: at,
    }));
    await c.patch(`/api/v1/nodes/${n.metadata.name}/status`, { status: { conditions } });
    this.node.log.info({ node: n.metadata.name }, 'kube-controller-manager: node NotReady (Kubelet stopped posting node status)');
  }

  /** The leader election Lease, as the real one keeps it (kube-system/kube-controller-manager). */
  private async holdLeaderLease(): Promise<void> {
    const path = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager';
    const spec = { holderIdentity: `${this.node.host.hostname}_${this.node.host.serverId}`, leaseDurationSeconds: 15, renewTime: microTime() };
    try {
      const lease = await this.own!.get<{ metadata: object; spec: object }>(path);
      await this.own!.put(path, { ...lease, spec: { ...lease.spec, ...spec } });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await this.own!.post('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'kube-controller-manager', namespace: 'kube-system' }, spec: { ...spec, acquireTime: spec.renewTime } });
    }
  }
}
