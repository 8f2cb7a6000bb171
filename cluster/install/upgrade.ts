/**
 * A node's Kubernetes upgrade, as the kubeadm upgrade guide runs it: the
 * package source moved to the target's minor, kubeadm at the target, then
 * `kubeadm upgrade apply` (the first master: the cluster's version) or
 * `kubeadm upgrade node` (the others), and after the drain the kubelet and
 * kubectl at the target and the kubelet restarted. Each step is idempotent:
 * a package already at its version is left, and kubeadm upgrades to the
 * version the cluster already has finish at once. A rollback takes the same
 * steps down one minor version: kubeadm downgrades by one minor as it upgrades.
 */
import type { SshSession } from '../../ssh';
import { shellQuote } from '../../ssh';
import { kubePackageVersion, kubernetesRepo } from './files';
import { aptEnv, writeFile, type NodeInstall } from './steps';

const MIN = 60_000;

// --allow-downgrades: a rollback installs the older version (apt refuses that under -y otherwise)
const held = (apt: string, pkgs: string[], version: string) =>
  `${apt} apt-get install -y --allow-change-held-packages --allow-downgrades ${pkgs.map((p) => shellQuote(`${p}=${kubePackageVersion(version)}`)).join(' ')} && apt-mark hold ${pkgs.join(' ')}`;

/** pkgs.k8s.io of the target's minor, and kubeadm at the target. */
export async function upgradeKubeadmPackage(s: SshSession, { settings, secrets }: NodeInstall, version: string): Promise<void> {
  const apt = aptEnv(secrets, settings.noProxy);
  const repo = kubernetesRepo(version);
  const curlEnv = apt.replace('env DEBIAN_FRONTEND=noninteractive', 'env');
  await s.run(`${curlEnv} curl -fsSL ${shellQuote(repo.keyUrl)} | gpg --batch --yes --dearmor -o /etc/apt/keyrings/kubernetes-apt-keyring.gpg`, { sudo: true, timeoutMs: 3 * MIN });
  await writeFile(s, '/etc/apt/sources.list.d/kubernetes.list', repo.list);
  await s.run(`${apt} apt-get update`, { sudo: true, timeoutMs: 10 * MIN });
  await s.run(held(apt, ['kubeadm'], version), { sudo: true, timeoutMs: 20 * MIN });
}

/** `kubeadm upgrade apply <version>` on the first master, `kubeadm upgrade node` on every other node. */
export async function kubeadmUpgrade(s: SshSession, mode: 'apply' | 'node', version: string): Promise<void> {
  const cmd = mode === 'apply' ? `kubeadm upgrade apply ${shellQuote(`v${version.replace(/^v/, '')}`)} --yes` : 'kubeadm upgrade node';
  await s.run(cmd, { sudo: true, timeoutMs: 20 * MIN });
}

/** kubelet and kubectl at the target, the kubelet restarted on it. */
export async function upgradeKubeletPackage(s: SshSession, { settings, secrets }: NodeInstall, version: string): Promise<void> {
  await s.run(held(aptEnv(secrets, settings.noProxy), ['kubelet', 'kubectl'], version), { sudo: true, timeoutMs: 20 * MIN });
  await s.run('systemctl daemon-reload && systemctl restart kubelet', { sudo: true, timeoutMs: 3 * MIN });
}
