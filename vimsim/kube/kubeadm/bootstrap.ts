/**
 * What `kubeadm init` does through the API once the control plane answers
 * (with super-admin.conf, group system:masters): uploads kubeadm-config and
 * kubelet-config, binds kubeadm:cluster-admins (admin.conf's group) to
 * cluster-admin, labels and taints the control-plane node, creates the
 * bootstrap tokens as Secrets, kubeadm's RBAC for them (get nodes, create
 * CSRs, auto-approve node client CSRs, rotation for system:nodes) and the
 * kube-public/cluster-info ConfigMap anonymous users may read.
 */
import { randomBytes } from 'node:crypto';
import YAML from 'yaml';
import { KubeApiError, isNotFound, metaTime, type KubeClient } from '../client';
import { parseDuration } from '@nfv-orchestrator/lib/go-duration';
import type { BootstrapTokenSpec } from './config';

export const BOOTSTRAP_GROUP = 'system:bootstrappers:kubeadm:default-node-token';
const RBAC = 'rbac.authorization.k8s.io';
const RBAC_API = `/apis/${RBAC}/v1`;

function clusterRoleBinding(name: string, role: string, subjects: { kind: string; name: string }[]) {
  return { apiVersion: `${RBAC}/v1`, kind: 'ClusterRoleBinding', metadata: { name }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role }, subjects: subjects.map((s) => ({ apiGroup: RBAC, ...s })) };
}

function configMapReader(client: KubeClient, ns: string, name: string, cm: string, subjects: { kind: string; name: string }[]) {
  return Promise.all([
    client.apply(`${RBAC_API}/namespaces/${ns}/roles`, { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name, namespace: ns }, rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [cm], verbs: ['get'] }] }),
    client.apply(`${RBAC_API}/namespaces/${ns}/rolebindings`, { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name, namespace: ns }, roleRef: { apiGroup: RBAC, kind: 'Role', name }, subjects: subjects.map((s) => ({ apiGroup: RBAC, ...s })) }),
  ]);
}

const groups = (...names: string[]) => names.map((name) => ({ kind: 'Group', name }));

export async function uploadConfig(client: KubeClient, clusterConfiguration: string, kubeletConfig: Record<string, unknown>, out: (l: string) => void): Promise<void> {
  out('[upload-config] Storing the configuration used in ConfigMap "kubeadm-config" in the "kube-system" Namespace');
  await client.apply('/api/v1/namespaces/kube-system/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kubeadm-config', namespace: 'kube-system' }, data: { ClusterConfiguration: clusterConfiguration } });
  await configMapReader(client, 'kube-system', 'kubeadm:nodes-kubeadm-config', 'kubeadm-config', groups(BOOTSTRAP_GROUP, 'system:nodes'));
  out('[kubelet] Creating a ConfigMap "kubelet-config" in namespace kube-system with the configuration for the kubelets in the cluster');
  await client.apply('/api/v1/namespaces/kube-system/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kubelet-config', namespace: 'kube-system' }, data: { kubelet: YAML.stringify(kubeletConfig) } });
  await configMapReader(client, 'kube-system', 'kubeadm:kubelet-config', 'kubelet-config', groups(BOOTSTRAP_GROUP, 'system:nodes'));
  await client.apply(`${RBAC_API}/clusterrolebindings`, clusterRoleBinding('kubeadm:cluster-admins', 'cluster-admin', groups('kubeadm:cluster-admins')), 'retain');
}

/** mark-control-plane: waits for the kubelet to have registered the node, then labels and taints it. */
export async function markControlPlane(client: KubeClient, nodeName: string, taints: { key: string; value?: string; effect: string }[], deadline: number, out: (l: string) => void): Promise<void> {
  const labels = ['node-role.kubernetes.io/control-plane', 'node.kubernetes.io/exclude-from-external-load-balancers'];
  out(`[mark-control-plane] Marking the node ${nodeName} as control-plane by adding the labels: [${labels.join(' ')}]`);
  if (taints.length) out(`[mark-control-plane] Marking the node ${nodeName} as control-plane by adding the taints [${taints.map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`).join(' ')}]`);
  for (;;) {
    try {
      const node = await client.get<{ spec?: { taints?: { key: string; effect: string }[] } }>(`/api/v1/nodes/${nodeName}`);
      const existing = node.spec?.taints ?? [];
      const merged = [...existing, ...taints.filter((t) => !existing.some((x) => x.key === t.key && x.effect === t.effect))];
      await client.patch(`/api/v1/nodes/${nodeName}`, { metadata: { labels: Object.fromEntries(labels.map((l) => [l, ''])) }, spec: { taints: merged } });
      return;
    } catch (err) {
      if (!isNotFound(err) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** A random token as kubeadm makes them: [a-z0-9]{6}.[a-z0-9]{16}. */
export function randomToken(): string {
  const chars = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const pick = (n: number) => [...randomBytes(n)].map((b) => chars[b % chars.length]).join('');
  return `${pick(6)}.${pick(16)}`;
}

export function tokenSecret(t: BootstrapTokenSpec) {
  const [id, secret] = t.token.split('.');
  const ttl = t.ttl === undefined ? 24 * 3_600_000 : parseDuration(t.ttl) ?? 24 * 3_600_000;
  const expiration = t.expires ?? (ttl > 0 ? metaTime(new Date(Date.now() + ttl)) : undefined);
  const usages = t.usages ?? ['signing', 'authentication'];
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    stringData: {
      'token-id': id,
      'token-secret': secret,
      ...(t.description ? { description: t.description } : {}),
      ...(expiration ? { expiration } : {}),
      ...Object.fromEntries(usages.map((u) => [`usage-bootstrap-${u}`, 'true'])),
      ...((t.groups ?? [BOOTSTRAP_GROUP]).length ? { 'auth-extra-groups': (t.groups ?? [BOOTSTRAP_GROUP]).join(',') } : {}),
    },
  };
}

export async function createTokens(client: KubeClient, tokens: BootstrapTokenSpec[]): Promise<void> {
  for (const t of tokens) await client.apply('/api/v1/namespaces/kube-system/secrets', tokenSecret(t));
}

/** The bootstrap-token phase: tokens, RBAC, cluster-info. */
export async function bootstrapTokenPhase(client: KubeClient, tokens: BootstrapTokenSpec[], clusterInfoKubeconfig: string, out: (l: string) => void): Promise<void> {
  for (const t of tokens) out(`[bootstrap-token] Using token: ${t.token}`);
  out('[bootstrap-token] Configuring bootstrap tokens, cluster-info ConfigMap, RBAC Roles');
  await createTokens(client, tokens);
  await client.apply(`${RBAC_API}/clusterroles`, { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'kubeadm:get-nodes' }, rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }] });
  await client.apply(`${RBAC_API}/clusterrolebindings`, clusterRoleBinding('kubeadm:get-nodes', 'kubeadm:get-nodes', groups(BOOTSTRAP_GROUP)));
  out('[bootstrap-token] Configured RBAC rules to allow Node Bootstrap tokens to get nodes');
  await client.apply(`${RBAC_API}/clusterrolebindings`, clusterRoleBinding('kubeadm:kubelet-bootstrap', 'system:node-bootstrapper', groups(BOOTSTRAP_GROUP)));
  out('[bootstrap-token] Configured RBAC rules to allow Node Bootstrap tokens to post CSRs in order for nodes to get long term certificate credentials');
  await client.apply(`${RBAC_API}/clusterrolebindings`, clusterRoleBinding('kubeadm:node-autoapprove-bootstrap', 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', groups(BOOTSTRAP_GROUP)));
  out('[bootstrap-token] Configured RBAC rules to allow the csrapprover controller automatically approve CSRs from a Node Bootstrap Token');
  await client.apply(`${RBAC_API}/clusterrolebindings`, clusterRoleBinding('kubeadm:node-autoapprove-certificate-rotation', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', groups('system:nodes')));
  out('[bootstrap-token] Configured RBAC rules to allow certificate rotation for all node client certificates in the cluster');
  out('[bootstrap-token] Creating the "cluster-info" ConfigMap in the "kube-public" namespace');
  await client.apply('/api/v1/namespaces/kube-public/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info', namespace: 'kube-public' }, data: { kubeconfig: clusterInfoKubeconfig } });
  await configMapReader(client, 'kube-public', 'kubeadm:bootstrap-signer-clusterinfo', 'cluster-info', [{ kind: 'User', name: 'system:anonymous' }]);
}

/** The kubeconfig of cluster-info: the server and the CA, no user. */
export function clusterInfoKubeconfig(server: string, caPem: string): string {
  return YAML.stringify({
    apiVersion: 'v1',
    clusters: [{ cluster: { 'certificate-authority-data': Buffer.from(caPem).toString('base64'), server }, name: '' }],
    contexts: null,
    'current-context': '',
    kind: 'Config',
    preferences: {},
    users: null,
  });
}

export function isAlreadyExists(err: unknown): boolean {
  return err instanceof KubeApiError && err.reason === 'AlreadyExists';
}
