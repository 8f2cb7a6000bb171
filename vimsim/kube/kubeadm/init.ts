/**
 * `kubeadm init` on a simulated host: preflight, certs, kubeconfig, etcd and
 * control-plane manifests, kubelet-start (the kubelet then runs the static
 * pods: real etcd and kube-apiserver), wait-control-plane against the real
 * API server, then upload-config, mark-control-plane, bootstrap-token and
 * kubelet-finalize through the API, and the join command. Waits are real;
 * where the outcome is already certain (the kubelet cannot start, the API
 * server keeps crashing, its certificate is not trusted) the simulator says
 * so at once instead of sitting out kubeadm's 4-minute timeout.
 */
import type { SimHost } from '../../ssh/host/host';
import { startService, stopService } from '../../ssh/host/services';
import { KubeClient, KubeApiError } from '../client';
import { formatDuration, parseDuration } from '@nfv-orchestrator/lib/go-duration';
import { credentialsFrom, buildKubeconfig } from '../kubeconfig';
import { KUBELET_CLIENT_CURRENT, KUBELET_PKI } from '../kubelet';
import { KUBELET_KUBECONFIG } from '../node-parts';
import { caCertHash, certPem } from '../pki';
import { hostResolver } from '../resolve';
import { bootstrapTokenPhase, clusterInfoKubeconfig, markControlPlane, randomToken, uploadConfig } from './bootstrap';
import { certsPhase, kubeconfigPhase, KUBERNETES_DIR, loadCa, PhaseError } from './certs';
import { clusterConfigYaml, effective, K8S_VERSION, type Effective, type KubeadmConfigFile } from './config';
import { controlPlanePhase, etcdPhase, kubeletConfig, kubeletFlags, writeKubeletFiles } from './manifests';
import { controlPlaneImages, imagePullCheck } from './images';
import { initChecks, runChecks } from './preflight';
import { newCertificateKey, uploadCerts } from './upload-certs';

const ROOT = { name: 'root', uid: 0, home: '/root' };
const CONTROL_PLANE_TAINT = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };
const TLS_GIVE_UP_MS = 20_000;
const CRASHES_GIVE_UP = 3;

export interface KubeadmIo {
  host: SimHost;
  out(line: string): void;
  err(line: string): void;
}

/** The kubelet-start phase's restart: stop, start (systemctl restart kubelet). */
export function restartKubelet(io: KubeadmIo): void {
  io.out('[kubelet-start] Starting the kubelet');
  if (!io.host.services.get('kubelet')) return;
  stopService(io.host, 'kubelet');
  startService(io.host, 'kubelet');
}

/** [kubelet-check]: the kubelet runs (or the error kubeadm ends with). */
export function checkKubelet(io: KubeadmIo, timeoutMs: number, phase: string): void {
  io.out(`[kubelet-check] Waiting for a healthy kubelet at http://127.0.0.1:10248/healthz. This can take up to ${formatDuration(timeoutMs)}`);
  if (io.host.kube?.kubeletRunning) {
    io.out('[kubelet-check] The kubelet is healthy after 501.21ms');
    return;
  }
  io.out(`[kubelet-check] The kubelet is not healthy after ${formatDuration(timeoutMs)}`);
  io.err(`\nUnfortunately, an error has occurred, likely caused by:\n\t- The kubelet is not running\n\t- The kubelet is unhealthy due to a misconfiguration of the node in some way (required cgroups disabled)\n\nIf you are on a systemd-powered system, you can try to troubleshoot the error with the following commands:\n\t- 'systemctl status kubelet'\n\t- 'journalctl -xeu kubelet'\n`);
  throw new PhaseError(phase, `failed while waiting for the kubelet to start: The HTTP call equal to 'curl -sSL http://127.0.0.1:10248/healthz' returned error: Get "http://127.0.0.1:10248/healthz": dial tcp 127.0.0.1:10248: connect: connection refused`);
}

/** [control-plane-check]: the real API server answers /livez with the super-admin credentials. */
async function waitForApi(io: KubeadmIo, e: Effective, client: KubeClient): Promise<void> {
  const timeout = parseDuration(e.init.timeouts.controlPlaneComponentHealthCheck) ?? 240_000;
  const url = `https://${e.advertiseAddress}:${e.bindPort}/livez`;
  io.out(`[control-plane-check] Waiting for healthy control plane components. This can take up to ${formatDuration(timeout)}`);
  io.out(`[control-plane-check] Checking kube-apiserver at ${url}`);
  io.out('[control-plane-check] Checking kube-controller-manager at https://127.0.0.1:10257/healthz');
  io.out('[control-plane-check] Checking kube-scheduler at https://127.0.0.1:10259/livez');
  const start = Date.now();
  let lastError = 'context deadline exceeded';
  let tlsSince: number | undefined;
  for (;;) {
    try {
      await client.get('/livez');
      const took = formatDuration(Date.now() - start);
      io.out(`[control-plane-check] kube-controller-manager is healthy after ${took}`);
      io.out(`[control-plane-check] kube-scheduler is healthy after ${took}`);
      io.out(`[control-plane-check] kube-apiserver is healthy after ${took}`);
      return;
    } catch (err) {
      lastError = err instanceof KubeApiError && err.status > 0 ? `${err.status} ${err.message}` : (err as Error).message;
      tlsSince = /tls: failed to verify/.test(lastError) ? tlsSince ?? Date.now() : undefined;
    }
    const pod = io.host.kube?.pods.byProgram('kube-apiserver');
    const hopeless = (pod && !pod.process && pod.error && !pod.lastExit) || (pod && pod.restarts >= CRASHES_GIVE_UP) || (tlsSince !== undefined && Date.now() - tlsSince > TLS_GIVE_UP_MS) || !io.host.kube?.kubeletRunning;
    if (hopeless || Date.now() - start > timeout) {
      if (pod?.error && !pod.process) lastError = `${pod.error}; ${lastError}`;
      io.out(`[control-plane-check] kube-apiserver is not healthy after ${formatDuration(timeout)}`);
      io.err(`\nA control plane component may have crashed or exited when started by the container runtime.\nTo troubleshoot, list all containers using your preferred container runtimes CLI.\nHere is one example how you may list all running Kubernetes containers by using crictl:\n\t- 'crictl --runtime-endpoint unix:///run/containerd/containerd.sock ps -a | grep kube | grep -v pause'\n\tOnce you have found the failing container, you can inspect its logs with:\n\t- 'crictl --runtime-endpoint unix:///run/containerd/containerd.sock logs CONTAINERID'\n`);
      throw new PhaseError('wait-control-plane', `failed while waiting for the control plane to start: kube-apiserver check failed at ${url}: ${lastError}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

export function parseEffective(io: KubeadmIo, file: KubeadmConfigFile): Effective {
  return effective(file, io.host.hostname, io.host.address);
}

/** The kubelet flags and files init writes. */
function kubeletStart(io: KubeadmIo, e: Effective): void {
  const taints = e.init.nodeRegistration.taints === undefined ? [CONTROL_PLANE_TAINT] : e.init.nodeRegistration.taints ?? [];
  writeKubeletFiles(io.host.fs, kubeletConfig(e), kubeletFlags(e.nodeName, io.host.hostname, e.init.nodeRegistration.criSocket, e.init.nodeRegistration.kubeletExtraArgs, taints), io.out);
  restartKubelet(io);
}

export interface InitFlags {
  ignore: string[];
  skip: string[];
  /** --upload-certs: the CAs go to the kubeadm-certs Secret for control planes joining later. */
  uploadCerts: boolean;
  certificateKey?: string;
}

export async function kubeadmInit(io: KubeadmIo, file: KubeadmConfigFile, flags: InitFlags): Promise<void> {
  const e = parseEffective(io, file);
  const certificateKey = flags.uploadCerts ? flags.certificateKey ?? e.init.certificateKey ?? newCertificateKey() : undefined;
  if (certificateKey) io.host.extraSecrets.add(certificateKey);
  const skip = new Set([...e.init.skipPhases, ...flags.skip]);
  const tokens = e.init.bootstrapTokens ?? [{ token: randomToken() }];
  for (const t of tokens) {
    io.host.extraSecrets.add(t.token);
    io.host.extraSecrets.add(t.token.split('.')[1]);
  }
  io.out(`[init] Using Kubernetes version: ${e.cluster.kubernetesVersion ?? K8S_VERSION}`);
  if (!skip.has('preflight')) {
    io.out('[preflight] Running pre-flight checks');
    await runChecks(initChecks(io.host, e.bindPort, e.etcdDataDir), [...e.init.nodeRegistration.ignorePreflightErrors, ...flags.ignore], io.err);
    io.out('[preflight] Pulling images required for setting up a Kubernetes cluster');
    io.out('[preflight] This might take a minute or two, depending on the speed of your internet connection');
    io.out("[preflight] You can also perform this action beforehand using 'kubeadm config images pull'");
    await runChecks([imagePullCheck(io.host, controlPlaneImages(e.cluster.imageRepository, e.cluster.kubernetesVersion ?? K8S_VERSION))], [...e.init.nodeRegistration.ignorePreflightErrors, ...flags.ignore], io.err);
  }
  await certsPhase(io.host.fs, e, io.out);
  await kubeconfigPhase(io.host.fs, e, io.out);
  etcdPhase(io.host.fs, e, io.out);
  controlPlanePhase(io.host.fs, e, io.out);
  kubeletStart(io, e);
  io.out(`[wait-control-plane] Waiting for the kubelet to boot up the control plane as static Pods from directory "/etc/kubernetes/manifests"`);
  checkKubelet(io, parseDuration(e.init.timeouts.kubeletHealthCheck) ?? 240_000, 'wait-control-plane');
  const client = new KubeClient(credentialsFrom(io.host.fs, `${KUBERNETES_DIR}/super-admin.conf`), { resolve: hostResolver(io.host) });
  try {
    await waitForApi(io, e, client);
    const apiDeadline = Date.now() + (parseDuration(e.init.timeouts.kubernetesAPICall) ?? 60_000);
    if (!skip.has('upload-config')) await phase('upload-config', () => uploadConfig(client, clusterConfigYaml(e), kubeletConfig(e), io.out));
    if (certificateKey && !skip.has('upload-certs')) await phase('upload-certs', () => uploadCerts(client, io.host.fs, e.cluster.certificatesDir, certificateKey, io.out));
    else io.out('[upload-certs] Skipping phase. Please see --upload-certs');
    if (!skip.has('mark-control-plane')) {
      const taints = e.init.nodeRegistration.taints === undefined ? [CONTROL_PLANE_TAINT] : e.init.nodeRegistration.taints ?? [];
      await phase('mark-control-plane', () => markControlPlane(client, e.nodeName, taints, apiDeadline, io.out));
    }
    const ca = loadCa(io.host.fs, e, 'bootstrap-token');
    if (!skip.has('bootstrap-token')) await phase('bootstrap-token', () => bootstrapTokenPhase(client, tokens, clusterInfoKubeconfig(`https://${e.endpoint}`, certPem(ca.cert)), io.out));
    kubeletFinalize(io, e);
    io.out(initDone(e, tokens[0].token, caCertHash(ca.cert), certificateKey));
  } finally {
    client.close();
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

/** kubelet-finalize: kubelet.conf points to the rotatable kubelet-client-current.pem. */
function kubeletFinalize(io: KubeadmIo, e: Effective): void {
  const memfs = io.host.fs;
  if (!memfs.isFile(KUBELET_KUBECONFIG)) return;
  const creds = credentialsFrom(memfs, KUBELET_KUBECONFIG);
  if (!creds.cert || !creds.key) return;
  io.out(`[kubelet-finalize] Updating "${KUBELET_KUBECONFIG}" to point to a rotatable kubelet client certificate and key`);
  memfs.mkdir(KUBELET_PKI, ROOT, { parents: true });
  memfs.writeFile(KUBELET_CLIENT_CURRENT, creds.cert + creds.key, ROOT, { mode: 0o600 });
  memfs.writeFile(KUBELET_KUBECONFIG, buildKubeconfig({
    clusterName: e.cluster.clusterName, contextName: `system:node:${e.nodeName}@${e.cluster.clusterName}`, server: creds.server, caPem: creds.ca ?? '',
    userName: `system:node:${e.nodeName}`, certFile: KUBELET_CLIENT_CURRENT, keyFile: KUBELET_CLIENT_CURRENT,
  }), ROOT, { mode: 0o600 });
}

function initDone(e: Effective, token: string, hash: string, certificateKey: string | undefined): string {
  const join = `kubeadm join ${e.endpoint} --token ${token} \\\n\t--discovery-token-ca-cert-hash ${hash}`;
  // kubeadm offers the control-plane join only with a stable endpoint
  const controlPlanes = !e.cluster.controlPlaneEndpoint ? '' : `You can now join any number of control-plane nodes by copying certificate authorities
and service account keys on each node and then running the following as root:

  ${join} \\\n\t--control-plane${certificateKey ? ` --certificate-key ${certificateKey}` : ''}
${certificateKey ? `
Please note that the certificate-key gives access to cluster sensitive data, keep it secret!
As a safeguard, uploaded-certs will be deleted in two hours; If necessary, you can use
"kubeadm init phase upload-certs --upload-certs" to reload certs afterward.
` : ''}
`;
  return `
Your Kubernetes control-plane has initialized successfully!

To start using your cluster, you need to run the following as a regular user:

  mkdir -p $HOME/.kube
  sudo cp -i /etc/kubernetes/admin.conf $HOME/.kube/config
  sudo chown $(id -u):$(id -g) $HOME/.kube/config

Alternatively, if you are the root user, you can run:

  export KUBECONFIG=/etc/kubernetes/admin.conf

You should now deploy a pod network to the cluster.
Run "kubectl apply -f [podnetwork].yaml" with one of the options listed at:
  https://kubernetes.io/docs/concepts/cluster-administration/addons/

${controlPlanes}Then you can join any number of worker nodes by running the following on each as root:

${join} `;
}

/** `kubeadm init phase <name> ...` for the phases the CA rotation and repairs use. */
export async function initPhase(io: KubeadmIo, file: KubeadmConfigFile, name: string, sub: string | undefined, flags: { uploadCerts: boolean; certificateKey?: string; kubeconfig: string }): Promise<void> {
  const e = parseEffective(io, file);
  switch (name) {
    case 'upload-certs': {
      if (!flags.uploadCerts) {
        io.out('[upload-certs] Skipping phase. Please see --upload-certs');
        return;
      }
      const key = flags.certificateKey ?? e.init.certificateKey ?? newCertificateKey();
      io.host.extraSecrets.add(key);
      const client = new KubeClient(credentialsFrom(io.host.fs, flags.kubeconfig), { resolve: hostResolver(io.host) });
      try {
        return await phase('upload-certs', () => uploadCerts(client, io.host.fs, e.cluster.certificatesDir, key, io.out));
      } finally {
        client.close();
      }
    }
    case 'certs':
      if (sub !== 'all' && sub !== undefined) throw new Error(`unknown phase "certs/${sub}": the simulator runs "certs all"`);
      return certsPhase(io.host.fs, e, io.out);
    case 'kubeconfig':
      if (sub !== 'all' && sub !== undefined) throw new Error(`unknown phase "kubeconfig/${sub}": the simulator runs "kubeconfig all"`);
      return kubeconfigPhase(io.host.fs, e, io.out);
    case 'control-plane':
      return controlPlanePhase(io.host.fs, e, io.out);
    case 'etcd':
      return etcdPhase(io.host.fs, e, io.out);
    case 'kubelet-start':
      return kubeletStart(io, e);
    default:
      throw new Error(`invalid phase name: ${name}`);
  }
}
