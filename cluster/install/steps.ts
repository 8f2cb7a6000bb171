/**
 * The install steps on one node, as an operator runs them with kubeadm and
 * containerd (docs/cluster-engine.md §2). Each step is idempotent: run again,
 * it finds its work done (a file written again is the same file, a line is
 * added to /etc/hosts only when missing, a package already installed is
 * left). Success is an exit code, never "stderr was empty"; a failure names
 * the command and its output (secrets masked by the session).
 */
import type { SshSession } from '../../ssh';
import { shellQuote } from '../../ssh';
import type { ClusterSecrets, ClusterSettings, RegistrySetting } from '../../model/cluster';
import {
  aptProxyConf, containerdConfig, hostsLines, kubePackageVersion, kubernetesRepo, MODULES_LOAD, proxyDropIn,
  registryCaPath, registryDir, registryHostsToml, SYSCTL_K8S,
} from './files';

const MIN = 60_000;

export interface NodeInstall {
  settings: ClusterSettings;
  secrets: ClusterSecrets;
}

/** Writes a file as root through stdin (never on a command line), with a mode. */
export async function writeFile(s: SshSession, file: string, content: string | Buffer, mode = '644'): Promise<void> {
  const dir = file.replace(/\/[^/]*$/, '') || '/';
  await s.run(`mkdir -p ${shellQuote(dir)} && install -m ${mode} /dev/stdin ${shellQuote(file)}`, { sudo: true, stdin: content, timeoutMs: MIN });
}

export function aptEnv(secrets: ClusterSecrets, noProxy?: string): string {
  const p = secrets.proxy;
  const vars = [p?.http_proxy && `http_proxy=${shellQuote(p.http_proxy)}`, p?.https_proxy && `https_proxy=${shellQuote(p.https_proxy)}`, noProxy && `no_proxy=${shellQuote(noProxy)}`];
  return ['env DEBIAN_FRONTEND=noninteractive', ...vars.filter(Boolean)].join(' ');
}

/** swap off, kernel modules, sysctls, /etc/hosts entries, apt's proxy. */
export async function prepareNode(s: SshSession, { settings, secrets }: NodeInstall): Promise<void> {
  await s.run("swapoff -a && sed -i -E '/^[^#].*\\sswap\\s/ s/^/#/' /etc/fstab", { sudo: true, timeoutMs: MIN });
  await writeFile(s, '/etc/modules-load.d/k8s.conf', MODULES_LOAD);
  await s.run('modprobe overlay && modprobe br_netfilter', { sudo: true, timeoutMs: MIN });
  await writeFile(s, '/etc/sysctl.d/99-kubernetes-cri.conf', SYSCTL_K8S);
  await s.run('sysctl --system', { sudo: true, timeoutMs: MIN });
  for (const line of settings.registries.flatMap((r) => hostsLines(r.hostsString))) {
    // a retried step must not add the same line twice
    await s.run(`grep -qxF -- ${shellQuote(line)} /etc/hosts || printf '%s\\n' ${shellQuote(line)} >> /etc/hosts`, { sudo: true, timeoutMs: MIN });
  }
  const apt = aptProxyConf(secrets.proxy);
  if (apt) await writeFile(s, '/etc/apt/apt.conf.d/proxy.conf', apt, '600');
}

/** A service restarted after its config changed, and active afterwards. */
async function restartService(s: SshSession, unit: string): Promise<void> {
  await s.run(`systemctl daemon-reload && systemctl enable ${unit} && systemctl restart ${unit}`, { sudo: true, timeoutMs: 3 * MIN });
  const r = await s.exec(`systemctl is-active ${unit}`, { sudo: true, timeoutMs: MIN });
  if (r.code !== 0 || !/^active/m.test(r.stdout)) throw new Error(`${unit} is not active after its restart (${(r.stdout + r.stderr).trim().slice(0, 200) || `exit ${r.code}`})`);
}

/** containerd from the distribution, its config (registry credentials: 0600), its proxy. */
export async function installContainerRuntime(s: SshSession, { settings, secrets }: NodeInstall): Promise<void> {
  const apt = aptEnv(secrets, settings.noProxy);
  await s.run(`${apt} apt-get update`, { sudo: true, timeoutMs: 10 * MIN });
  await s.run(`${apt} apt-get install -y containerd`, { sudo: true, timeoutMs: 20 * MIN });
  await writeFile(s, '/etc/containerd/config.toml', containerdConfig(settings, secrets), '600');
  const dropIn = proxyDropIn(secrets.proxy, settings.noProxy);
  if (dropIn) await writeFile(s, '/etc/systemd/system/containerd.service.d/http-proxy.conf', dropIn, '600');
  await restartService(s, 'containerd');
}

/** Each private registry: its hosts.toml (and CA), then a check of its /v2/ as an operator would make. */
export async function configureRegistries(s: SshSession, { settings, secrets }: NodeInstall): Promise<void> {
  for (const r of settings.registries) {
    if (r.connectionType === 1 && r.caPem) await writeFile(s, registryCaPath(r), r.caPem);
    await writeFile(s, `${registryDir(r)}/hosts.toml`, registryHostsToml(r));
  }
  if (settings.registries.length) await restartService(s, 'containerd');
  for (const r of settings.registries) await checkRegistry(s, r, secrets);
}

async function checkRegistry(s: SshSession, r: RegistrySetting, secrets: ClusterSecrets): Promise<void> {
  const url = `${r.connectionType === 1 ? 'https' : 'http'}://${r.server}/v2/`;
  const creds = r.hasCredentials ? secrets.registries[r.server] : undefined;
  const tls = r.connectionType === 1 ? ` --cacert ${shellQuote(registryCaPath(r))}` : '';
  // credentials through curl's config on stdin: never on the command line
  const config = creds ? `user = ${JSON.stringify(`${creds.username}:${creds.password}`)}\n` : '';
  const res = await s.exec(`curl -sS -o /dev/null -w '%{http_code}' --max-time 20${tls} --config - ${shellQuote(url)}`, { stdin: config, timeoutMs: MIN });
  const code = res.stdout.trim();
  if (res.code !== 0) throw new Error(`registry ${r.server} does not answer at ${url}: ${res.stderr.trim().slice(0, 300) || `curl exit ${res.code}`}`);
  if (code !== '200' && !(code === '401' && !creds)) throw new Error(`registry ${r.server} answered ${code} at ${url}${creds ? ' with the given credentials' : ''}`);
}

/** kubelet, kubeadm and kubectl at the cluster's version from pkgs.k8s.io, held there; the kubelet enabled. */
export async function installKubernetesPackages(s: SshSession, { settings, secrets }: NodeInstall): Promise<void> {
  const apt = aptEnv(secrets, settings.noProxy);
  const repo = kubernetesRepo(settings.kubeVersion);
  const curlEnv = apt.replace('env DEBIAN_FRONTEND=noninteractive', 'env');
  await s.run('mkdir -p -m 755 /etc/apt/keyrings', { sudo: true, timeoutMs: MIN });
  await s.run(`${curlEnv} curl -fsSL ${shellQuote(repo.keyUrl)} | gpg --batch --yes --dearmor -o /etc/apt/keyrings/kubernetes-apt-keyring.gpg`, { sudo: true, timeoutMs: 3 * MIN });
  await writeFile(s, '/etc/apt/sources.list.d/kubernetes.list', repo.list);
  await s.run(`${apt} apt-get update`, { sudo: true, timeoutMs: 10 * MIN });
  const v = kubePackageVersion(settings.kubeVersion);
  await s.run(`${apt} apt-get install -y --allow-change-held-packages ${['kubelet', 'kubeadm', 'kubectl'].map((p) => shellQuote(`${p}=${v}`)).join(' ')}`, { sudo: true, timeoutMs: 20 * MIN });
  await s.run('apt-mark hold kubelet kubeadm kubectl', { sudo: true, timeoutMs: MIN });
  const dropIn = proxyDropIn(secrets.proxy, settings.noProxy);
  if (dropIn) await writeFile(s, '/etc/systemd/system/kubelet.service.d/http-proxy.conf', dropIn, '600');
  await s.run('systemctl daemon-reload && systemctl enable --now kubelet', { sudo: true, timeoutMs: 3 * MIN });
}
