/**
 * The kubeadm steps (docs/cluster-engine.md §2, steps 5-7, and the removal):
 * the product's CAs placed on the first master, `kubeadm init` from a config
 * file, `kubeadm join` with a bootstrap token in a config file (0600) (a
 * control-plane node gets the CAs placed first), and
 * `kubeadm reset`. Whether the API answers and a node is Ready is judged
 * through the Kubernetes API by the caller, never from kubeadm's output.
 */
import type { SshSession } from '../../ssh';
import { shellQuote } from '../../ssh';
import { KUBEADM_INIT_CONFIG, KUBEADM_JOIN_CONFIG, kubeadmInitConfig, kubeadmJoinConfig, type InitConfigInput, type JoinConfigInput } from './files';
import { writeFile } from './steps';

const MIN = 60_000;

/** A file of the cluster's PKI as placed under /etc/kubernetes/pki; keys are 0600. */
export interface PkiFile { path: string; content: string; secret: boolean }

export async function placePki(s: SshSession, files: PkiFile[]): Promise<void> {
  for (const f of files) await writeFile(s, f.path, f.content, f.secret ? '600' : '644');
}

/** Whether kubeadm has already set this node up (its kubeconfig is there). */
async function hasFile(s: SshSession, file: string): Promise<boolean> {
  return (await s.exec(`test -f ${file}`, { sudo: true, timeoutMs: MIN })).code === 0;
}

/**
 * The product's CAs in /etc/kubernetes/pki, then kubeadm init, unless it
 * already ran. `apiAnswers` asks the API (with the product's admin
 * certificate): an init that left files but no API is reset (which removes
 * /etc/kubernetes, the CAs too) and run again.
 */
export async function kubeadmInit(s: SshSession, c: InitConfigInput, pki: PkiFile[], apiAnswers: () => Promise<boolean>): Promise<'initialised' | 'already'> {
  if (await hasFile(s, '/etc/kubernetes/admin.conf')) {
    if (await apiAnswers()) return 'already';
    await kubeadmReset(s);
  }
  await placePki(s, pki);
  await writeFile(s, KUBEADM_INIT_CONFIG, kubeadmInitConfig(c), '600');
  await s.run(`kubeadm init --config ${KUBEADM_INIT_CONFIG}`, { sudo: true, timeoutMs: 15 * MIN });
  return 'initialised';
}

/**
 * `kubeadm config images pull` of the cluster's version: undefined once every
 * control-plane image is on the node, else the line saying why not (a
 * registry that does not serve them yet). kubeadm init and a control-plane
 * join would fail their preflight on it; pulled first, they can be waited for.
 */
export async function pullControlPlaneImages(s: SshSession, kubernetesVersion: string): Promise<string | undefined> {
  const r = await s.exec(`kubeadm config images pull --kubernetes-version ${shellQuote(kubernetesVersion)}`, { sudo: true, timeoutMs: 15 * MIN });
  if (r.code === 0) return undefined;
  const lines = `${r.stderr}\n${r.stdout}`.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('To see the stack trace'));
  return s.redact(lines[0] ?? `exit ${r.code ?? r.signal}`).slice(0, 300);
}

/**
 * kubeadm join, unless the node has joined. `registered` asks the API
 * whether the node's Node object exists: a node with a kubelet.conf but no
 * Node (a join cut short) is reset and joined again.
 */
export async function kubeadmJoin(s: SshSession, c: JoinConfigInput & { controlPlane?: { pki: PkiFile[] } }, registered: () => Promise<boolean>): Promise<'joined' | 'already'> {
  if (await hasFile(s, '/etc/kubernetes/kubelet.conf')) {
    if (await registered()) return 'already';
    await kubeadmReset(s);
  } else if (c.controlPlane && await hasFile(s, '/etc/kubernetes/manifests/etcd.yaml')) {
    // a control-plane join cut short (its etcd member may be in the cluster): reset takes the member out again
    await kubeadmReset(s);
  }
  if (c.controlPlane) await placePki(s, c.controlPlane.pki);
  await writeFile(s, KUBEADM_JOIN_CONFIG, kubeadmJoinConfig(c), '600');
  try {
    await s.run(`kubeadm join --config ${KUBEADM_JOIN_CONFIG}`, { sudo: true, timeoutMs: 15 * MIN });
  } finally {
    // the token is short-lived, but it has no business staying on the node
    await s.exec(`rm -f ${KUBEADM_JOIN_CONFIG}`, { sudo: true, timeoutMs: MIN }).catch(() => undefined);
  }
  return 'joined';
}

/** kubeadm reset: the node's static pods, kubelet state, kubeconfigs and certificates go. */
export async function kubeadmReset(s: SshSession): Promise<void> {
  await s.run('kubeadm reset -f', { sudo: true, timeoutMs: 5 * MIN });
}

const ETCDCTL = 'env ETCDCTL_API=3 etcdctl --endpoints https://127.0.0.1:2379 --cacert /etc/kubernetes/pki/etcd/ca.crt '
  + '--cert /etc/kubernetes/pki/etcd/healthcheck-client.crt --key /etc/kubernetes/pki/etcd/healthcheck-client.key';

/**
 * On a live master: the etcd member of a master that is gone (or being
 * replaced) leaves the cluster, found by its peer URL. Done when it is not
 * a member (any more). etcd refuses while the others are not connected long
 * enough ("unhealthy cluster"): the caller retries. etcdctl (Ubuntu's
 * etcd-client) is installed first where the master lacks it: kubeadm's
 * stacked etcd runs in a static pod and brings no client to the host.
 */
export async function removeEtcdMember(s: SshSession, address: string, aptEnv: string): Promise<'removed' | 'absent'> {
  await s.run(`command -v etcdctl >/dev/null || ${aptEnv} apt-get install -y etcd-client`, { sudo: true, timeoutMs: 20 * MIN });
  const list = await s.run(`${ETCDCTL} member list`, { sudo: true, timeoutMs: MIN });
  const line = list.stdout.split('\n').find((l) => l.split(', ')[3]?.split(',').includes(`https://${address}:2380`));
  if (!line) return 'absent';
  await s.run(`${ETCDCTL} member remove ${shellQuote(line.split(',')[0].trim())}`, { sudo: true, timeoutMs: MIN });
  return 'removed';
}
