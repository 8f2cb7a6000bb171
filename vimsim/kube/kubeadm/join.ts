/**
 * `kubeadm join` (a worker) on a simulated host: preflight; token discovery
 * (cluster-info read anonymously without TLS verification, its CA pinned by
 * caCertHashes = sha256 of the CA's SubjectPublicKeyInfo, read again over
 * verified TLS; a JWS signature, when cluster-info has one for the token id,
 * is checked); the kubeadm-config and kubelet-config ConfigMaps read with the
 * bootstrap token, so the real API server refuses a wrong or expired token;
 * kubelet-start with bootstrap-kubelet.conf; then the kubelet's TLS bootstrap,
 * and exit 0 once its Node is registered.
 */
import { createHmac } from 'node:crypto';
import YAML from 'yaml';
import { KubeApiError, KubeClient, isNotFound } from '../client';
import { formatDuration, parseDuration } from '@nfv-orchestrator/lib/go-duration';
import { buildKubeconfig, credentialsFrom, parseKubeconfig } from '../kubeconfig';
import { BOOTSTRAP_KUBECONFIG, KUBELET_KUBECONFIG } from '../node-parts';
import { caCertHash, certPem, parseCert } from '../pki';
import { hostResolver } from '../resolve';
import { markControlPlane } from './bootstrap';
import { certsPhase, kubeconfigPhase, KUBERNETES_DIR, PhaseError } from './certs';
import { effective, initForJoin, parseClusterConfiguration, type Effective, type JoinCfg } from './config';
import { joinEtcd } from './etcd-member';
import { controlPlanePhase } from './manifests';
import { downloadCerts } from './upload-certs';
import { checkKubelet, restartKubelet, type KubeadmIo } from './init';
import { kubeletConfig, kubeletFlags, writeKubeletFiles } from './manifests';
import { joinChecks, runChecks } from './preflight';

const ROOT = { name: 'root', uid: 0, home: '/root' };
/** The real discovery retries for 5 minutes; a simulated API server that is not there now will not be in a minute either. */
const DISCOVERY_CAP_MS = 60_000;

const JOIN_DONE = `
This node has joined the cluster:
* Certificate signing request was sent to apiserver and a response was received.
* The Kubelet was informed of the new secure connection details.

Run 'kubectl get nodes' on the control-plane to see this node join the cluster.
`;

const CONTROL_PLANE_JOIN_DONE = (name: string) => `
This node has joined the cluster and a new control plane instance was created:

* Certificate signing request was sent to apiserver and approval was received.
* The Kubelet was informed of the new secure connection details.
* Control plane label and taint were applied to the new node.
* The Kubernetes control plane instances scaled up.
* A new etcd member was added to the local/stacked etcd cluster.

To start administering your cluster from this node, you need to run the following as a regular user:

\tmkdir -p $HOME/.kube
\tsudo cp -i /etc/kubernetes/admin.conf $HOME/.kube/config
\tsudo chown $(id -u):$(id -g) $HOME/.kube/config

Run 'kubectl get nodes' to see this node (${name}) join the cluster.
`;
const CONTROL_PLANE_TAINT = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };

/** The detached JWS (HS256, kid = token id) the bootstrap signer puts into cluster-info. */
function jwsValid(jws: string, content: string, tokenId: string, secret: string): boolean {
  const [header, , signature] = jws.split('.');
  const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');
  const expectedHeader = b64url(JSON.stringify({ alg: 'HS256', kid: tokenId }));
  const mac = createHmac('sha256', secret).update(`${header}.${b64url(content)}`).digest('base64url');
  return header === expectedHeader && mac === signature;
}

async function clusterInfo(client: KubeClient, deadline: number): Promise<Record<string, string>> {
  for (;;) {
    try {
      const cm = await client.get<{ data?: Record<string, string> }>('/api/v1/namespaces/kube-public/configmaps/cluster-info');
      return cm.data ?? {};
    } catch (err) {
      if (Date.now() > deadline) throw new PhaseError('preflight', `couldn't validate the identity of the API Server: failed to request the cluster-info ConfigMap: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** Token discovery: the CA of the cluster, validated as kubeadm does. */
async function discover(io: KubeadmIo, bt: NonNullable<JoinCfg['discovery']['bootstrapToken']>, timeoutMs: number): Promise<{ server: string; caPem: string }> {
  const [tokenId, tokenSecret] = bt.token.split('.');
  const server = `https://${bt.apiServerEndpoint}`;
  const deadline = Date.now() + Math.min(timeoutMs, DISCOVERY_CAP_MS);
  const insecure = new KubeClient({ server, insecure: true }, { resolve: hostResolver(io.host) });
  let data: Record<string, string>;
  try {
    data = await clusterInfo(insecure, deadline);
  } finally {
    insecure.close();
  }
  const kubeconfig = data.kubeconfig;
  if (!kubeconfig) throw new PhaseError('preflight', `couldn't validate the identity of the API Server: there is no kubeconfig key in the cluster-info ConfigMap. This API Server isn't set up for token bootstrapping, can't connect`);
  const jws = data[`jws-kubeconfig-${tokenId}`];
  if (jws !== undefined && !jwsValid(jws, kubeconfig, tokenId, tokenSecret)) {
    throw new PhaseError('preflight', "couldn't validate the identity of the API Server: failed to verify JWS signature of received cluster info object, can't trust this API Server");
  }
  const doc = parseKubeconfig(kubeconfig);
  const caPem = Buffer.from(doc.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString('utf8');
  if (bt.caCertHashes.length > 0) {
    const hash = caCertHash(parseCert(caPem));
    if (!bt.caCertHashes.map((h) => h.toLowerCase()).includes(hash)) {
      throw new PhaseError('preflight', `couldn't validate the identity of the API Server: cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${hash}" are pinned`);
    }
  }
  const secure = new KubeClient({ server, ca: caPem }, { resolve: hostResolver(io.host) });
  try {
    const again = await clusterInfo(secure, deadline);
    if (again.kubeconfig !== kubeconfig) throw new PhaseError('preflight', "couldn't validate the identity of the API Server: the second kubeconfig from the cluster-info ConfigMap (using validated TLS) was different from the first");
  } finally {
    secure.close();
  }
  return { server: doc.clusters[0]?.cluster.server ?? server, caPem };
}

export async function kubeadmJoin(io: KubeadmIo, cfg: JoinCfg, flags: { ignore: string[] }): Promise<void> {
  const bt = cfg.discovery.bootstrapToken;
  if (!bt) throw new Error('discovery: Invalid value: "": bootstrapToken or file must be set (the simulator does token discovery)');
  if (!/^[a-z0-9]{6}\.[a-z0-9]{16}$/.test(bt.token)) throw new Error(`discovery.bootstrapToken.token: Invalid value: "${bt.token.replace(/\.[^.]*$/, '.…')}": the bootstrap token is invalid`);
  if (bt.caCertHashes.length === 0 && !bt.unsafeSkipCAVerification) {
    throw new Error('discovery.bootstrapToken.caCertHashes: Invalid value: "": using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue');
  }
  io.host.extraSecrets.add(bt.token);
  io.host.extraSecrets.add(bt.token.split('.')[1]);
  const nodeName = (cfg.nodeRegistration.name ?? io.host.hostname).toLowerCase();
  const cp = cfg.controlPlane;
  if (cp?.certificateKey) io.host.extraSecrets.add(cp.certificateKey);
  io.out('[preflight] Running pre-flight checks');
  await runChecks(joinChecks(io.host, cfg.caCertPath, cp ? { bindPort: cp.localAPIEndpoint.bindPort ?? 6443, etcdDataDir: '/var/lib/etcd' } : undefined), [...cfg.nodeRegistration.ignorePreflightErrors, ...flags.ignore], io.err);
  const { server, caPem } = await discover(io, bt, parseDuration(cfg.timeouts.discovery) ?? 300_000);

  // what kubeadm reads with the bootstrap token: a refused token ends here
  io.out('[preflight] Reading configuration from the "kubeadm-config" ConfigMap in namespace "kube-system"...');
  io.out("[preflight] Use 'kubeadm init phase upload-config kubeadm --config your-config-file' to re-upload it.");
  const client = new KubeClient({ server, ca: caPem, token: bt.token }, { resolve: hostResolver(io.host) });
  let kubeletCfg: Record<string, unknown>;
  let cluster: Record<string, any>;
  let e: Effective | undefined;
  try {
    try {
      const kc = await tokenRead(() => client.get<{ data: { ClusterConfiguration: string } }>('/api/v1/namespaces/kube-system/configmaps/kubeadm-config'));
      cluster = (YAML.parse(kc.data.ClusterConfiguration) ?? {}) as Record<string, any>;
      const kl = await client.get<{ data: { kubelet: string } }>('/api/v1/namespaces/kube-system/configmaps/kubelet-config');
      kubeletCfg = (YAML.parse(kl.data.kubelet) ?? {}) as Record<string, unknown>;
    } catch (err) {
      throw new PhaseError('preflight', `unable to fetch the kubeadm-config ConfigMap: failed to get config map: ${err instanceof KubeApiError ? err.message : String(err)}`);
    }
    try {
      const existing = await client.get<{ status?: { conditions?: { type: string; status: string }[] } }>(`/api/v1/nodes/${nodeName}`);
      if (existing.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) {
        throw new PhaseError('kubelet-start', `a Node with name "${nodeName}" and status "Ready" already exists in the cluster. You must delete the existing Node or change the name of this new joining Node`);
      }
    } catch (err) {
      if (err instanceof PhaseError) throw err;
      if (!isNotFound(err)) throw new PhaseError('kubelet-start', `cannot get Node "${nodeName}": ${(err as Error).message}`);
    }
    if (cp) e = await prepareControlPlane(io, cfg, cluster, kubeletCfg, client);
  } finally {
    client.close();
  }

  // kubelet-start: the bootstrap kubeconfig, the CA, the kubelet's files
  const memfs = io.host.fs;
  memfs.mkdir('/etc/kubernetes/pki', ROOT, { parents: true });
  memfs.writeFile(BOOTSTRAP_KUBECONFIG, buildKubeconfig({ clusterName: cluster.clusterName ?? 'kubernetes', server, caPem, userName: 'tls-bootstrap-token-user', token: bt.token }), ROOT, { mode: 0o600 });
  memfs.writeFile(cfg.caCertPath, certPem(parseCert(caPem)), ROOT, { mode: 0o644 });
  const clusterLike = { certificatesDir: '/etc/kubernetes/pki', networking: { serviceSubnet: cluster.networking?.serviceSubnet ?? '10.96.0.0/12', dnsDomain: cluster.networking?.dnsDomain ?? 'cluster.local' } };
  const taints = cp ? controlPlaneTaints(cfg.nodeRegistration.taints) : cfg.nodeRegistration.taints ?? undefined;
  writeKubeletFiles(memfs, kubeletConfig({ kubelet: kubeletCfg, cluster: clusterLike as never }), kubeletFlags(nodeName, io.host.hostname, cfg.nodeRegistration.criSocket, cfg.nodeRegistration.kubeletExtraArgs, taints), io.out);
  restartKubelet(io);
  checkKubelet(io, parseDuration(cfg.timeouts.kubeletHealthCheck) ?? 240_000, 'kubelet-start');
  await waitForBootstrap(io, parseDuration(cfg.timeouts.tlsBootstrap) ?? 300_000);
  if (!e) return io.out(JOIN_DONE);
  await finishControlPlane(io, e, taints ?? [], parseDuration(cfg.timeouts.kubernetesAPICall) ?? 60_000);
  io.out(CONTROL_PLANE_JOIN_DONE(e.nodeName));
}

/** The control-plane taint unless the registration says otherwise (null or a list), as for init. */
function controlPlaneTaints(taints: { key: string; value?: string; effect: string }[] | null | undefined) {
  return taints === undefined ? [CONTROL_PLANE_TAINT] : taints ?? [];
}

/**
 * control-plane-prepare: the cluster must have a stable endpoint; the CAs come
 * from the kubeadm-certs Secret (with --certificate-key) or were copied; then
 * this node's certificates, kubeconfigs and control-plane manifests.
 */
async function prepareControlPlane(io: KubeadmIo, cfg: JoinCfg, cluster: Record<string, any>, kubeletCfg: Record<string, unknown>, tokenClient: KubeClient): Promise<Effective> {
  const clusterCfg = parseClusterConfiguration(cluster);
  if (!clusterCfg.controlPlaneEndpoint) {
    throw new PhaseError('preflight', `\nOne or more conditions for hosting a new control plane instance is not satisfied.\n\nunable to add a new control plane instance to a cluster that doesn't have a stable controlPlaneEndpoint address\n\nPlease ensure that:\n* The cluster has a stable controlPlaneEndpoint address.\n* The certificates that must be shared among control plane instances are provided.\n`);
  }
  const e = effective({ init: initForJoin(cfg), cluster: clusterCfg, kubelet: kubeletCfg, warnings: [] }, io.host.hostname, io.host.address);
  io.out('[preflight] Running pre-flight checks before initializing the new control plane instance');
  const memfs = io.host.fs;
  const key = cfg.controlPlane?.certificateKey;
  if (key) await downloadCerts(tokenClient, memfs, e.cluster.certificatesDir, key, io.out);
  await certsPhase(memfs, e, io.out);
  await kubeconfigPhase(memfs, e, io.out, true);
  controlPlanePhase(memfs, e, io.out);
  return e;
}

/** etcd-join, then mark-control-plane, both with this node's admin.conf through the control-plane endpoint. */
async function finishControlPlane(io: KubeadmIo, e: Effective, taints: { key: string; value?: string; effect: string }[], apiCallMs: number): Promise<void> {
  const admin = new KubeClient(credentialsFrom(io.host.fs, `${KUBERNETES_DIR}/admin.conf`), { resolve: hostResolver(io.host) });
  try {
    await joinEtcd(io.host.fs, e, admin, io.out);
    await markControlPlane(admin, e.nodeName, taints, Date.now() + apiCallMs, io.out).catch((err: Error) => {
      throw new PhaseError('mark-control-plane', err.message);
    });
  } finally {
    admin.close();
  }
}

/**
 * A fresh token may not have reached every API server behind a load balancer yet (their token
 * authenticators read Secrets through informers). Real discovery first waits for the token's JWS
 * signature in cluster-info, which gives it that time; no bootstrap signer runs here, so a 401 is
 * read again for a few seconds before it counts.
 */
async function tokenRead<T>(read: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      return await read();
    } catch (err) {
      if (!(err instanceof KubeApiError && err.status === 401) || Date.now() > deadline) throw err;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** [kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap, then for its Node. */
async function waitForBootstrap(io: KubeadmIo, timeoutMs: number): Promise<void> {
  io.out('[kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const agent = io.host.kube?.kubelet;
    if (io.host.fs.isFile(KUBELET_KUBECONFIG) && agent?.registered) return;
    if (!io.host.kube?.kubeletRunning || Date.now() > deadline) {
      io.err(`\nUnfortunately, an error has occurred, likely caused by:\n\t- The kubelet is not running\n\t- The kubelet is unhealthy due to a misconfiguration of the node in some way (required cgroups disabled)\n\nIf you are on a systemd-powered system, you can try to troubleshoot the error with the following commands:\n\t- 'systemctl status kubelet'\n\t- 'journalctl -xeu kubelet'\n`);
      throw new PhaseError('kubelet-start', `failed while waiting for TLS bootstrap: ${Date.now() > deadline ? `timed out after ${formatDuration(timeoutMs)}: context deadline exceeded` : 'the kubelet stopped'}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
