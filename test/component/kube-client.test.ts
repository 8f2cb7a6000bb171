/**
 * infra/kubernetes against a real kube-apiserver (test/support/kube-apiserver.ts):
 * node operations on Node objects made through the API as fixtures, drains
 * (mirror and DaemonSet pods left, budgets answered 429), idempotent
 * creates, TokenRequest with the RBAC bound through the client, ConfigMaps,
 * and the transport's limits (outbound policy, response cap, masked errors).
 */
import crypto from 'node:crypto';
import { OutboundRefused, ResponseTooLarge } from '../../common/outbound';
import { tokenKubeconfig } from '../../cluster/pki';
import { KubeApiError, KubeClient, type KubeCredentials, isNodeReady, nodeInternalIp, nodeReadyStatus } from '../../infra/kubernetes';
import { type TestKubeApiserver, startKubeApiserver } from '../support/kube-apiserver';

let api: TestKubeApiserver;
let kube: KubeClient;
const clients: KubeClient[] = [];

function client(credentials: KubeCredentials, extra: { maxBytes?: number; listPageSize?: number } = {}): KubeClient {
  const c = new KubeClient({ server: api.url, caPem: api.pki.certs.kubernetesCa, credentials, timeoutMs: 10_000, maxBytes: extra.maxBytes }, { listPageSize: extra.listPageSize });
  clients.push(c);
  return c;
}

/** kubectl apply of a JSON manifest (the fixtures are made with the real client, not ours). */
function kubectlApply(manifest: object, ...extra: string[]): void {
  const r = api.kubectl(['create', '-f', '-', ...extra], { input: JSON.stringify(manifest) });
  if (r.status !== 0) throw new Error(`kubectl create: ${r.stderr}`);
}

function setNodeConditions(name: string, ready: 'True' | 'False'): void {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const patch = { status: { conditions: [{ type: 'Ready', status: ready, reason: 'KubeletReady', message: 'test', lastHeartbeatTime: now, lastTransitionTime: now }], addresses: [{ type: 'InternalIP', address: '192.0.2.10' }] } };
  const r = api.kubectl(['patch', 'node', name, '--subresource=status', '--type=merge', '-p', JSON.stringify(patch)]);
  if (r.status !== 0) throw new Error(`kubectl patch status: ${r.stderr}`);
}

const node = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels } });
const pod = (name: string, nodeName: string, extra: { annotations?: Record<string, string>; ownerReferences?: object[]; labels?: Record<string, string>; grace?: number } = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', labels: extra.labels, annotations: extra.annotations, ownerReferences: extra.ownerReferences },
  spec: { nodeName, terminationGracePeriodSeconds: extra.grace ?? 0, containers: [{ name: 'c', image: 'registry.example/pause:3.10' }] },
});

beforeAll(async () => {
  api = await startKubeApiserver({ clusterName: 'k8s-client' });
  kube = client({ clientCertPem: api.pki.certs.admin, clientKeyPem: api.pki.keys.admin });
}, 180_000);
afterAll(async () => {
  for (const c of clients) c.close();
  await api?.stop();
});

it('healthz answers 200 "ok", whoAmI is the admin', async () => {
  expect(await kube.healthz()).toEqual({ status: 200, body: 'ok' });
  expect(await kube.whoAmI()).toMatchObject({ username: 'admin', groups: expect.arrayContaining(['system:masters']) });
});

describe('nodes', () => {
  beforeAll(() => {
    kubectlApply(node('master-0', { 'node-role.kubernetes.io/control-plane': '' }));
    kubectlApply(node('worker-0', { 'magnum.openstack.org/nodegroup': 'default-worker' }));
    kubectlApply(node('worker-1'));
    setNodeConditions('master-0', 'True');
    setNodeConditions('worker-0', 'False');
  });

  it('listNodes and getNode parse the nodes and their Ready condition (True, False, none yet = Unknown)', async () => {
    const nodes = await kube.listNodes();
    expect(nodes.map((n) => n.metadata.name).sort()).toEqual(['master-0', 'worker-0', 'worker-1']);
    const byName = Object.fromEntries(nodes.map((n) => [n.metadata.name, n]));
    expect(nodeReadyStatus(byName['master-0'])).toBe('True');
    expect(isNodeReady(byName['master-0'])).toBe(true);
    expect(nodeReadyStatus(byName['worker-0'])).toBe('False');
    expect(nodeReadyStatus(byName['worker-1'])).toBe('Unknown');
    expect(nodeInternalIp(byName['master-0'])).toBe('192.0.2.10');
    expect((await kube.listNodes('node-role.kubernetes.io/control-plane')).map((n) => n.metadata.name)).toEqual(['master-0']);
    // one node per page: the continue tokens are followed to the end
    const paged = client({ clientCertPem: api.pki.certs.admin, clientKeyPem: api.pki.keys.admin }, { listPageSize: 1 });
    expect((await paged.listNodes()).map((n) => n.metadata.name).sort()).toEqual(['master-0', 'worker-0', 'worker-1']);
    expect((await kube.getNode('worker-0'))?.metadata.labels).toEqual({ 'magnum.openstack.org/nodegroup': 'default-worker' });
    expect(await kube.getNode('no-such-node')).toBeUndefined();
  });

  it('labels (set and remove), cordon and uncordon, as kubectl then sees them', async () => {
    await kube.labelNode('worker-0', { 'node-role.kubernetes.io/worker': '', 'magnum.openstack.org/nodegroup': null });
    expect(JSON.parse(api.kubectl(['get', 'node', 'worker-0', '-o', 'jsonpath={.metadata.labels}']).stdout)).toEqual({ 'node-role.kubernetes.io/worker': '' });
    expect((await kube.cordonNode('worker-0')).spec?.unschedulable).toBe(true);
    expect(api.kubectl(['get', 'node', 'worker-0', '-o', 'jsonpath={.spec.unschedulable}']).stdout).toBe('true');
    expect((await kube.uncordonNode('worker-0')).spec?.unschedulable).toBeUndefined();
    const patched = await kube.patchNode('worker-1', { metadata: { annotations: { 'cluster.engine/step': 'joined' } } });
    expect(patched.metadata.annotations).toEqual({ 'cluster.engine/step': 'joined' });
  });

  it('deleteNode deletes, and is "not found" the second time', async () => {
    expect(await kube.deleteNode('worker-1')).toBe('deleted');
    expect(await kube.deleteNode('worker-1')).toBe('not found');
    expect(api.kubectl(['get', 'node', 'worker-1']).stderr).toMatch(/NotFound/);
  });
});

describe('drain', () => {
  beforeAll(async () => {
    kubectlApply(node('drain-me'));
    // no controller-manager here: the namespace's default service account is made by hand
    expect(await kube.createServiceAccount('default', 'default')).toBe('created');
    kubectlApply(pod('web-1', 'drain-me'));
    kubectlApply(pod('web-2', 'drain-me', { grace: 30 }));
    kubectlApply(pod('static-etcd', 'drain-me', { annotations: { 'kubernetes.io/config.mirror': 'abc123' } }));
    kubectlApply(pod('ds-proxy', 'drain-me', { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'kube-proxy', uid: crypto.randomUUID(), controller: true }] }));
    kubectlApply(pod('guarded', 'drain-me', { labels: { app: 'guarded' } }));
    kubectlApply(pod('elsewhere', 'master-0'));
    // a Pending pod ignores budgets (the eviction API lets it go): this one is made Running
    expect(api.kubectl(['patch', 'pod', 'guarded', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Running"}}']).status).toBe(0);
    kubectlApply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'guard', namespace: 'default' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } } });
  });

  it('listPods by node; evictPod is evicted / gone (404) / retry-later (429, a budget)', async () => {
    expect((await kube.listPods({ nodeName: 'drain-me' })).map((p) => p.metadata.name).sort()).toEqual(['ds-proxy', 'guarded', 'static-etcd', 'web-1', 'web-2']);
    expect((await kube.listPods({ namespace: 'default' })).length).toBe(6);
    expect(await kube.evictPod('default', 'guarded')).toBe('retry-later');
    expect(await kube.evictPod('default', 'no-such-pod')).toBe('gone');
  });

  it('drainNode cordons, evicts all but mirror and DaemonSet pods, reports the rest (not those being deleted from a node not Ready), and is done once they are gone', async () => {
    const first = await kube.drainNode('drain-me');
    expect(first.evicted.sort()).toEqual(['default/web-1', 'default/web-2']);
    expect(first.skipped.sort()).toEqual(['default/ds-proxy', 'default/static-etcd']);
    expect(first.remaining).toEqual(['default/guarded']);
    expect(first.done).toBe(false);
    expect((await kube.getNode('drain-me'))?.spec?.unschedulable).toBe(true);
    // web-1 (grace 0) is gone; web-2 terminates for 30 s (no kubelet here to finish it)
    const second = await kube.drainNode('drain-me');
    expect(second.evicted).toEqual([]);
    expect(second.remaining.sort()).toEqual(['default/guarded', 'default/web-2']);
    // a node that is not Ready: no kubelet will confirm web-2's end, so it is not waited for (only the budget holds)
    expect((await kube.drainNode('drain-me', { skipWaitForDelete: true })).remaining).toEqual(['default/guarded']);
    expect(api.kubectl(['delete', 'pdb', 'guard']).status).toBe(0);
    expect(api.kubectl(['delete', 'pod', 'web-2', '--grace-period=0', '--force']).status).toBe(0);
    const third = await kube.drainNode('drain-me');
    expect(third.evicted).toEqual(['default/guarded']);
    const last = await kube.drainNode('drain-me');
    expect(last).toEqual({ evicted: [], skipped: expect.arrayContaining(['default/ds-proxy', 'default/static-etcd']), remaining: [], done: true });
    expect((await kube.listPods({ nodeName: 'master-0' })).map((p) => p.metadata.name)).toEqual(['elsewhere']);
  });
});

describe('service account, RBAC and TokenRequest', () => {
  it('creates are idempotent; a requested token authenticates as the service account with the bound role only', async () => {
    expect(await kube.createServiceAccount('kube-system', 'tacker-vim')).toBe('created');
    expect(await kube.createServiceAccount('kube-system', 'tacker-vim')).toBe('exists');
    // the built-in view role is aggregated by kube-controller-manager, which does not run here: a plain role instead
    kubectlApply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'pod-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] });
    const binding = { name: 'tacker-vim-pod-reader', clusterRole: 'pod-reader', subjects: [{ kind: 'ServiceAccount' as const, name: 'tacker-vim', namespace: 'kube-system' }] };
    expect(await kube.createClusterRoleBinding(binding)).toBe('created');
    expect(await kube.createClusterRoleBinding(binding)).toBe('exists');

    const t = await kube.requestToken('kube-system', 'tacker-vim', 3600);
    expect(t.token.split('.')).toHaveLength(3); // a JWT signed with the PKI's service-account key
    expect(Date.parse(t.expirationTimestamp) - Date.now()).toBeGreaterThan(3500_000);
    const vim = client({ token: t.token });
    expect(await vim.whoAmI()).toMatchObject({ username: 'system:serviceaccount:kube-system:tacker-vim', groups: expect.arrayContaining(['system:serviceaccounts']) });
    expect((await vim.listPods({ namespace: 'default' })).length).toBeGreaterThan(0); // the bound role: pods
    const forbidden = await vim.listNodes().catch((e: unknown) => e); // not nodes
    expect(forbidden).toBeInstanceOf(KubeApiError);
    expect(forbidden).toMatchObject({ status: 403, reason: 'Forbidden' });
    expect((forbidden as Error).message).toMatch(/system:serviceaccount:kube-system:tacker-vim.*cannot list resource "nodes"/);
    expect((forbidden as Error).message).not.toContain(t.token);
    // kubectl with a token kubeconfig sees the same identity
    const file = api.writeFile('vim.kubeconfig', tokenKubeconfig({ clusterName: 'k8s-client', server: api.url, caPem: api.pki.certs.kubernetesCa, user: 'tacker-vim', token: t.token }));
    expect(api.kubectl(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'], { kubeconfig: file }).stdout).toBe('system:serviceaccount:kube-system:tacker-vim');
    expect(api.kubectl(['auth', 'can-i', 'delete', 'nodes'], { kubeconfig: file }).stdout.trim()).toBe('no');
    await expect(kube.requestToken('kube-system', 'no-such-sa', 600)).rejects.toMatchObject({ status: 404 });
  });
});

describe('config maps and secrets', () => {
  it('getConfigMap reads one (the API server\'s own client CA map) and is undefined for a missing one', async () => {
    const cm = await kube.getConfigMap('kube-system', 'extension-apiserver-authentication');
    expect(cm?.data?.['client-ca-file']).toContain(api.pki.certs.kubernetesCa.trim());
    expect(await kube.getConfigMap('kube-public', 'no-such-map')).toBeUndefined();
  });

  it('createSecret answers created, then exists', async () => {
    const s = { metadata: { name: 'registry-auth' }, type: 'Opaque', stringData: { password: 'hunter22' } };
    expect(await kube.createSecret('default', s)).toBe('created');
    expect(await kube.createSecret('default', s)).toBe('exists');
  });
});

describe('transport limits', () => {
  it('the outbound policy refuses the API endpoint before anything is sent', async () => {
    const saved = process.env.OUTBOUND_DENY;
    process.env.OUTBOUND_DENY = '127.0.0.0/8';
    try {
      await expect(kube.healthz()).rejects.toThrow(OutboundRefused);
      await expect(kube.healthz()).rejects.toThrow(/Kubernetes API endpoint/);
    } finally {
      if (saved === undefined) delete process.env.OUTBOUND_DENY; else process.env.OUTBOUND_DENY = saved;
    }
    expect((await kube.healthz()).status).toBe(200);
  });

  it('a response above the cap is dropped (ResponseTooLarge)', async () => {
    const small = client({ clientCertPem: api.pki.certs.admin, clientKeyPem: api.pki.keys.admin }, { maxBytes: 512 });
    await expect(small.listNodes()).rejects.toThrow(ResponseTooLarge);
  });

  it('a plain-http endpoint is refused', async () => {
    const plain = new KubeClient({ server: api.url.replace('https:', 'http:'), caPem: api.pki.certs.kubernetesCa, credentials: { token: 'x' } });
    await expect(plain.healthz()).rejects.toThrow(/must be https/);
  });
});
