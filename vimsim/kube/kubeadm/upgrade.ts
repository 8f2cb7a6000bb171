/**
 * `kubeadm upgrade plan|apply|node` on a simulated host, as kubeadm v1.37
 * does them (messages from cmd/kubeadm/app/cmd/upgrade and phases/upgrade):
 * the cluster's version from the kubeadm-config ConfigMap, kubeadm's version
 * policy (one minor at a time, kubeadm at least the target), the cluster
 * health checks, the image pull (a version with no built kube-apiserver
 * cannot be pulled), then each control-plane manifest rewritten with the
 * new image tag (the old one backed up under /etc/kubernetes/tmp), waiting
 * for the kubelet to run the new API server, and the ConfigMaps and the
 * kubelet's config. Not simulated: certificate renewal, the CreateJob health
 * check (no workload controller runs), CoreDNS and kube-proxy (init applies
 * neither), etcd upgrades (both minors pin the same etcd).
 */
import YAML from 'yaml';
import type { SimHost } from '../../ssh/host/host';
import { installedKubeVersion } from '../../ssh/host/kube-packages';
import { KubeApiError, KubeClient } from '../client';
import { formatDuration } from '@nfv-orchestrator/lib/go-duration';
import { credentialsFrom } from '../kubeconfig';
import { MANIFEST_DIR } from '../manifest';
import { KUBELET_CONFIG } from '../node-parts';
import { hostResolver } from '../resolve';
import { KUBERNETES_DIR, PhaseError } from './certs';
import type { KubeadmIo } from './init';
import { imagePullCheck } from './images';
import { runChecks } from './preflight';

const ROOT = { name: 'root', uid: 0, home: '/root' };
const CONTROL_PLANE = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];
const UPGRADE_MANIFESTS_TIMEOUT_MS = 5 * 60_000;
/** Where kubeadm's outcome is certain (the new API server cannot be pulled or keeps crashing) it gives up at once. */
const CRASHES_GIVE_UP = 3;

interface Version { major: number; minor: number; patch: number; text: string }

export function parseVersion(v: string): Version | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(v.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), text: `v${m[1]}.${m[2]}.${m[3]}` } : undefined;
}

const lessThan = (a: Version, b: Version) => a.major !== b.major ? a.major < b.major : a.minor !== b.minor ? a.minor < b.minor : a.patch < b.patch;

export interface UpgradeFlags {
  kubeconfig: string;
  ignore: string[];
  yes: boolean;
  force: boolean;
  etcdUpgrade: boolean;
  answer: () => Promise<string | null>;
}

/** What kubeadm reads before an upgrade: the cluster's configuration and the versions. */
interface ClusterState {
  client: KubeClient;
  cluster: Record<string, any>;
  clusterVersion: Version;
  kubeadmVersion: Version;
}

function kubeadmVersionOf(host: SimHost): Version {
  return parseVersion(installedKubeVersion(host, 'kubeadm') ?? 'v1.37.2')!;
}

/** `prefix`: plan logs as "upgrade/config", apply and node as "upgrade". */
async function readCluster(io: KubeadmIo, kubeconfig: string, prefix = 'upgrade'): Promise<ClusterState> {
  const memfs = io.host.fs;
  if (!memfs.isFile(kubeconfig)) throw new Error(`couldn't create a Kubernetes client from file "${kubeconfig}": failed to load admin kubeconfig: open ${kubeconfig}: no such file or directory`);
  const client = new KubeClient(credentialsFrom(memfs, kubeconfig), { resolve: hostResolver(io.host), timeoutMs: 30_000 });
  try {
    io.out(`[${prefix}] Reading configuration from the "kubeadm-config" ConfigMap in namespace "kube-system"...`);
    io.out(`[${prefix}] Use 'kubeadm init phase upload-config kubeadm --config your-config-file' to re-upload it.`);
    const cm = await client.get<{ data?: { ClusterConfiguration?: string } }>('/api/v1/namespaces/kube-system/configmaps/kubeadm-config').catch((err: Error) => {
      throw new Error(`unable to fetch the kubeadm-config ConfigMap: failed to get config map: ${err.message}`);
    });
    const cluster = (YAML.parse(cm.data?.ClusterConfiguration ?? '') ?? {}) as Record<string, any>;
    const clusterVersion = parseVersion(String(cluster.kubernetesVersion ?? ''));
    if (!clusterVersion) throw new Error(`couldn't parse Kubernetes version "${cluster.kubernetesVersion ?? ''}"`);
    return { client, cluster, clusterVersion, kubeadmVersion: kubeadmVersionOf(io.host) };
  } catch (err) {
    client.close();
    throw err;
  }
}

/** kubeadm's cluster health checks (CreateJob is not simulated: no Job controller runs). */
async function healthChecks(io: KubeadmIo, s: ClusterState, ignore: string[]): Promise<void> {
  io.out('[upgrade] Running cluster health checks');
  await runChecks([
    async () => {
      const nodes = await s.client.get<{ items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }[] }>(`/api/v1/nodes?labelSelector=${encodeURIComponent('node-role.kubernetes.io/control-plane')}`);
      const notReady = nodes.items.filter((n) => n.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True').map((n) => n.metadata.name);
      return { name: 'ControlPlaneNodesReady', warnings: [], errors: notReady.length ? [`there are NotReady control-planes in the cluster: [${notReady.join(' ')}]`] : [] };
    },
    async () => {
      const missing = CONTROL_PLANE.map((c) => `${MANIFEST_DIR}/${c}.yaml`).filter((f) => !io.host.fs.isFile(f));
      return { name: 'StaticPodManifest', warnings: [], errors: missing.length ? [`manifest files not found: [${missing.join(' ')}]`] : [] };
    },
  ], ignore, io.err);
}

/** The control-plane images of a version this host's containerd could pull (those of a built kube-apiserver). */
async function pullImages(io: KubeadmIo, repo: string, target: Version, ignore: string[]): Promise<void> {
  io.out('[upgrade/preflight] Pulling images required for setting up a Kubernetes cluster');
  io.out('[upgrade/preflight] This might take a minute or two, depending on the speed of your internet connection');
  io.out("[upgrade/preflight] You can also perform this action beforehand using 'kubeadm config images pull'");
  await runChecks([imagePullCheck(io.host, CONTROL_PLANE.map((c) => `${repo}/${c}:${target.text}`))], ignore, io.err);
}

/** kubeadm's version policy (phases/upgrade/policy.go): mandatory errors, then those --force skips. */
function versionPolicy(io: KubeadmIo, s: ClusterState, target: Version, force: boolean): void {
  io.out(`[upgrade/preflight] You have chosen to upgrade the cluster version to "${target.text}"`);
  io.out(`[upgrade/versions] Cluster version: ${s.clusterVersion.text}`);
  io.out(`[upgrade/versions] kubeadm version: ${s.kubeadmVersion.text}`);
  const mandatory: string[] = [];
  const skippable: string[] = [];
  const k = s.kubeadmVersion;
  if (target.minor > s.clusterVersion.minor + 1) mandatory.push(`Specified version to upgrade to "${target.text}" is too high; kubeadm can upgrade only 1 minor version at a time`);
  if (target.minor < s.clusterVersion.minor - 1) mandatory.push(`Specified version to downgrade to "${target.text}" is too low; kubeadm can downgrade only 1 minor version at a time`);
  if (lessThan(k, target)) {
    if (target.minor > k.minor) mandatory.push(`Specified version to upgrade to "${target.text}" is at least one minor release higher than the kubeadm minor release (${target.minor} > ${k.minor}). Such an upgrade is not supported`);
    else skippable.push(`Specified version to upgrade to "${target.text}" is higher than the kubeadm version "${k.text}". Upgrade kubeadm first using the tool you used to install kubeadm`);
  }
  if (k.minor > target.minor) skippable.push(`Kubeadm version ${k.text} can only be used to upgrade to Kubernetes version ${k.major}.${k.minor}`);
  const list = (errs: string[]) => errs.map((e) => `\t- ${e}\n`).join('');
  if (mandatory.length) throw new PhaseError('preflight', `the version argument is invalid due to these fatal errors:\n\n${list(mandatory)}\nPlease fix the misalignments highlighted above and try upgrading again`);
  if (skippable.length && !force) throw new PhaseError('preflight', `the version argument is invalid due to these errors:\n\n${list(skippable)}\nCan be bypassed if you pass the --force flag`);
  if (skippable.length) io.out(`[upgrade/preflight] Found ${skippable.length} potential version compatibility errors but skipping since the --force flag is set: \n\n${list(skippable)}`);
}

const imageRepo = (s: ClusterState) => String(s.cluster.imageRepository ?? 'registry.k8s.io');

/** A timestamp as kubeadm names its backup directories (2006-01-02-15-04-05). */
const stamp = () => new Date().toISOString().replace(/T/, '-').replace(/:/g, '-').replace(/\..*$/, '');

/**
 * The static-pod upgrade of this node's control plane: each manifest gets the
 * target's image (its flags are the same in both minors), the old one goes to
 * the backup directory; a new API server that cannot be pulled or keeps
 * crashing puts every old manifest back, as kubeadm's rollback does.
 */
async function upgradeStaticPods(io: KubeadmIo, repo: string, target: Version, etcdUpgrade: boolean): Promise<void> {
  const memfs = io.host.fs;
  const backupDir = `${KUBERNETES_DIR}/tmp/kubeadm-backup-manifests-${stamp()}`;
  const tempDir = `${KUBERNETES_DIR}/tmp/kubeadm-upgraded-manifests${Math.floor(Math.random() * 1e9)}`;
  memfs.mkdir(backupDir, ROOT, { parents: true, mode: 0o700 });
  memfs.mkdir(tempDir, ROOT, { parents: true, mode: 0o700 });
  io.out(`[upgrade/staticpods] Writing new Static Pod manifests to "${tempDir}"`);
  const moved: string[] = [];
  const rollback = (reason: string): never => {
    for (const c of moved) memfs.writeFile(`${MANIFEST_DIR}/${c}.yaml`, memfs.readFile(`${backupDir}/${c}.yaml`, ROOT), ROOT, { mode: 0o600 });
    throw new PhaseError('control-plane', `couldn't complete the static pod upgrade: couldn't upgrade control plane. kubeadm has tried to recover everything into the earlier state. Errors faced: ${reason}`);
  };
  if (etcdUpgrade && memfs.isFile(`${MANIFEST_DIR}/etcd.yaml`)) {
    io.out('[upgrade/staticpods] Preparing for "etcd" upgrade');
    io.out('[upgrade/staticpods] Current and new manifests of etcd are equal, skipping upgrade');
  }
  for (const component of CONTROL_PLANE) {
    const file = `${MANIFEST_DIR}/${component}.yaml`;
    const current = memfs.readFile(file, ROOT).toString('utf8');
    const doc = YAML.parse(current) as { spec: { containers: { image?: string }[] } };
    doc.spec.containers[0].image = `${repo}/${component}:${target.text}`;
    const next = YAML.stringify(doc);
    memfs.writeFile(`${tempDir}/${component}.yaml`, next, ROOT, { mode: 0o600 });
    io.out(`[upgrade/staticpods] Preparing for "${component}" upgrade`);
    if (next === current) {
      io.out(`[upgrade/staticpods] Current and new manifests of ${component} are equal, skipping upgrade`);
      continue;
    }
    io.out(`[upgrade/staticpods] Moving new manifest to "${file}" and backing up old manifest to "${backupDir}/${component}.yaml"`);
    memfs.writeFile(`${backupDir}/${component}.yaml`, current, ROOT, { mode: 0o600 });
    memfs.writeFile(file, next, ROOT, { mode: 0o600 });
    moved.push(component);
    io.out('[upgrade/staticpods] Waiting for the kubelet to restart the component');
    io.out(`[upgrade/staticpods] This can take up to ${formatDuration(UPGRADE_MANIFESTS_TIMEOUT_MS)}`);
    const failure = await waitForComponent(io, component, doc.spec.containers[0].image!);
    if (failure) rollback(failure);
    io.out(`[upgrade/staticpods] Component "${component}" upgraded successfully!`);
  }
  memfs.remove(tempDir, ROOT, { recursive: true });
}

/** Waits for the kubelet to run the component's new image (and, for the API server, for it to answer); returns why not. */
async function waitForComponent(io: KubeadmIo, component: string, image: string): Promise<string | undefined> {
  const node = io.host.kube;
  if (!node) return 'the kubelet is not running';
  const deadline = Date.now() + UPGRADE_MANIFESTS_TIMEOUT_MS;
  let client: KubeClient | undefined;
  try {
    for (;;) {
      const pod = node.pods.byProgram(component);
      if (pod?.spec.image === image) {
        if (pod.pullError) return `${pod.pullError}`;
        if (pod.restarts >= CRASHES_GIVE_UP) return `static Pod hash for component ${component} on Node did not change after 5m0s: the container keeps exiting: ${pod.lastExit?.log.slice(-1)[0] ?? ''}`;
        if (component !== 'kube-apiserver' && node.pods.isRunning(component)) return undefined;
        if (component === 'kube-apiserver' && pod.process?.running) {
          client ??= localApiClient(io.host);
          if (await client.get('/livez').then(() => true, () => false)) {
            io.out('[apiclient] Found 1 Pods for label selector component=kube-apiserver');
            return undefined;
          }
        }
      }
      if (!node.kubeletRunning) return 'the kubelet is not running: static Pod manifests are not acted on';
      if (Date.now() > deadline) return `timed out waiting for the condition: static Pod hash for component ${component} did not change`;
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    client?.close();
  }
}

/** admin.conf's credentials against this node's own API server (kubeadm checks the local instance). */
function localApiClient(host: SimHost): KubeClient {
  const creds = credentialsFrom(host.fs, `${KUBERNETES_DIR}/admin.conf`);
  return new KubeClient({ ...creds, server: `https://${host.address}:6443` }, { resolve: hostResolver(host), timeoutMs: 5_000 });
}

/** upload-config: the kubeadm-config with the new kubernetesVersion, kubelet-config as it is. */
async function uploadConfig(io: KubeadmIo, s: ClusterState, target: Version): Promise<void> {
  io.out('[upload-config] Storing the configuration used in ConfigMap "kubeadm-config" in the "kube-system" Namespace');
  const path = '/api/v1/namespaces/kube-system/configmaps/kubeadm-config';
  const cm = await s.client.get<Record<string, any>>(path);
  cm.data.ClusterConfiguration = YAML.stringify({ ...s.cluster, kubernetesVersion: target.text });
  await s.client.put(path, cm);
  io.out('[kubelet] Creating a ConfigMap "kubelet-config" in namespace kube-system with the configuration for the kubelets in the cluster');
}

/** kubelet-config: /var/lib/kubelet/config.yaml from the cluster's kubelet-config (the old one backed up). */
async function writeKubeletConfig(io: KubeadmIo, client: KubeClient): Promise<void> {
  const memfs = io.host.fs;
  const cm = await client.get<{ data: { kubelet: string } }>('/api/v1/namespaces/kube-system/configmaps/kubelet-config');
  const backup = `${KUBERNETES_DIR}/tmp/kubeadm-kubelet-config${Math.floor(Math.random() * 1e9)}`;
  if (memfs.isFile(KUBELET_CONFIG)) {
    io.out(`[upgrade] Backing up kubelet config file to ${backup}/config.yaml`);
    memfs.mkdir(backup, ROOT, { parents: true, mode: 0o700 });
    memfs.writeFile(`${backup}/config.yaml`, memfs.readFile(KUBELET_CONFIG, ROOT), ROOT, { mode: 0o644 });
  }
  io.out(`[kubelet-start] Writing kubelet configuration to file "${KUBELET_CONFIG}"`);
  // the node's own settings (staticPodPath, ...) are in the cluster-wide config too
  const current = memfs.isFile(KUBELET_CONFIG) ? (YAML.parse(memfs.readFile(KUBELET_CONFIG, ROOT).toString('utf8')) ?? {}) : {};
  memfs.writeFile(KUBELET_CONFIG, YAML.stringify({ ...current, ...(YAML.parse(cm.data.kubelet) ?? {}) }), ROOT, { mode: 0o644 });
  io.out('[upgrade/kubelet-config] The kubelet configuration for this node was successfully upgraded!');
}

export async function upgradePlan(io: KubeadmIo, flags: Pick<UpgradeFlags, 'kubeconfig' | 'ignore'>): Promise<void> {
  io.out('[preflight] Running pre-flight checks.');
  const s = await readCluster(io, flags.kubeconfig, 'upgrade/config');
  try {
    await healthChecks(io, s, flags.ignore);
    io.out('[upgrade] Fetching available versions to upgrade to');
    io.out(`[upgrade/versions] Cluster version: ${s.clusterVersion.text}`);
    io.out(`[upgrade/versions] kubeadm version: ${s.kubeadmVersion.text}`);
    // offline: the target is kubeadm's own version (dl.k8s.io's stable marker is not reachable)
    const target = s.kubeadmVersion;
    io.out(`[upgrade/versions] Target version: ${target.text}`);
    io.out(`[upgrade/versions] Latest version in the v${s.clusterVersion.major}.${s.clusterVersion.minor} series: ${s.clusterVersion.text}`);
    if (!lessThan(s.clusterVersion, target)) {
      io.out('');
      io.out("[upgrade/plan] Awesome, you're up-to-date! Enjoy!");
      return;
    }
    const nodes = await s.client.get<{ items: { metadata: { name: string; labels?: Record<string, string> }; status?: { nodeInfo?: { kubeletVersion?: string } } }[] }>('/api/v1/nodes');
    const table = (rows: string[][]) => {
      const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
      return rows.map((r) => r.map((v, i) => v.padEnd(widths[i] + 3)).join('').trimEnd()).join('\n');
    };
    const masters = nodes.items.filter((n) => n.metadata.labels?.['node-role.kubernetes.io/control-plane'] !== undefined).map((n) => n.metadata.name);
    io.out('');
    io.out("Components that must be upgraded manually after you have upgraded the control plane with 'kubeadm upgrade apply':");
    io.out(table([['COMPONENT', 'NODE', 'CURRENT', 'TARGET'], ...nodes.items.map((n) => ['kubelet', n.metadata.name, n.status?.nodeInfo?.kubeletVersion ?? '', target.text])]));
    io.out('');
    io.out('Upgrade to the latest stable version:');
    io.out('');
    io.out(table([
      ['COMPONENT', 'NODE', 'CURRENT', 'TARGET'],
      ...CONTROL_PLANE.flatMap((c) => masters.map((m) => [c, m, s.clusterVersion.text, target.text])),
      ...masters.map((m) => ['etcd', m, '3.6.5-0', '3.6.5-0']),
    ]));
    io.out('');
    io.out('You can now apply the upgrade by executing the following command:');
    io.out('');
    io.out(`\tkubeadm upgrade apply ${target.text}`);
    io.out('');
    io.out('_____________________________________________________________________');
  } finally {
    s.client.close();
  }
}

export async function upgradeApply(io: KubeadmIo, version: string | undefined, flags: UpgradeFlags): Promise<void> {
  if (!version) throw new Error('missing one or more required arguments. Required arguments: [version]');
  const target = parseVersion(version);
  if (!target) throw new Error(`unable to parse normalized version "${version}" as a semantic version`);
  const s = await readCluster(io, flags.kubeconfig);
  try {
    io.out('[upgrade/preflight] Running preflight checks');
    await healthChecks(io, s, flags.ignore);
    if (target.minor < s.kubeadmVersion.minor - 1) {
      throw new PhaseError('preflight', `this version of kubeadm only supports deploying clusters with the control plane version >= ${s.kubeadmVersion.major}.${s.kubeadmVersion.minor - 1}.0. Current version: ${target.text}`);
    }
    versionPolicy(io, s, target, flags.force);
    if (!flags.yes && !flags.force) {
      io.out('[upgrade] Are you sure you want to proceed? [y/N]: ');
      const answer = (await flags.answer())?.trim().toLowerCase();
      if (answer !== 'y' && answer !== 'yes') throw new PhaseError('preflight', "won't proceed; the user didn't answer (Y|y) in order to continue");
    }
    await pullImages(io, imageRepo(s), target, flags.ignore);
    io.out(`[upgrade/control-plane] Upgrading your static Pod-hosted control plane to version "${target.text}" (timeout: ${formatDuration(UPGRADE_MANIFESTS_TIMEOUT_MS)})...`);
    await upgradeStaticPods(io, imageRepo(s), target, flags.etcdUpgrade);
    io.out('[upgrade/control-plane] The control plane instance for this node was successfully upgraded!');
    await phase('upload-config', () => uploadConfig(io, s, target));
    io.out('[upgrade/kubeconfig] The kubeconfig files for this node were successfully upgraded!');
    await phase('kubelet-config', () => writeKubeletConfig(io, s.client));
    io.out('[upgrade/bootstrap-token] Configuring bootstrap token and cluster-info RBAC rules');
    io.out('');
    io.out(`[upgrade] SUCCESS! A control plane node of your cluster was upgraded to "${target.text}".`);
    io.out('');
    io.out('[upgrade] Now please proceed with upgrading the rest of the nodes by following the right order.');
  } finally {
    s.client.close();
  }
}

/**
 * `kubeadm upgrade node`: a control-plane node's manifests to the cluster's
 * kubernetesVersion, then (every node) the kubelet's config. kubeadm only
 * warns when it is older than the cluster; the simulator refuses, so that a
 * node whose kubeadm package was forgotten fails.
 */
export async function upgradeNode(io: KubeadmIo, flags: Pick<UpgradeFlags, 'ignore' | 'etcdUpgrade'>): Promise<void> {
  const memfs = io.host.fs;
  const controlPlane = memfs.isFile(`${MANIFEST_DIR}/kube-apiserver.yaml`);
  // a control plane reads with admin.conf, a worker with its kubelet's credentials (as kubeadm does)
  const kubeconfig = controlPlane ? `${KUBERNETES_DIR}/admin.conf` : `${KUBERNETES_DIR}/kubelet.conf`;
  const s = await readCluster(io, kubeconfig).catch((err: Error) => {
    throw err instanceof KubeApiError ? new Error(`unable to fetch the kubeadm-config ConfigMap: ${err.message}`) : err;
  });
  try {
    io.out('[upgrade/preflight] Running pre-flight checks');
    await runChecks([async () => ({
      name: 'KubernetesVersion',
      warnings: [],
      errors: lessThan(s.kubeadmVersion, s.clusterVersion)
        ? [`Kubernetes version is greater than kubeadm version. Please consider to upgrade kubeadm. Kubernetes version: ${s.clusterVersion.text.slice(1)}. Kubeadm version: ${s.kubeadmVersion.major}.${s.kubeadmVersion.minor}.x`]
        : [],
    })], flags.ignore, io.err);
    if (controlPlane) {
      await pullImages(io, imageRepo(s), s.clusterVersion, flags.ignore);
      io.out(`[upgrade/control-plane] Upgrading your Static Pod-hosted control plane instance to version "${s.clusterVersion.text}"...`);
      await upgradeStaticPods(io, imageRepo(s), s.clusterVersion, flags.etcdUpgrade);
      io.out('[upgrade/control-plane] The control plane instance for this node was successfully upgraded!');
      io.out('[upgrade/kubeconfig] The kubeconfig files for this node were successfully upgraded!');
    } else {
      io.out('[upgrade/preflight] Skipping prepull. Not a control plane node.');
      io.out('[upgrade/control-plane] Skipping phase. Not a control plane node.');
      io.out('[upgrade/kubeconfig] Skipping phase. Not a control plane node.');
    }
    await phase('kubelet-config', () => writeKubeletConfig(io, s.client));
  } finally {
    s.client.close();
  }
}

async function phase(name: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof PhaseError) throw err;
    throw new PhaseError(name, (err as Error).message);
  }
}
