/**
 * kubeadm's `control-plane` and `etcd local` phases and its kubelet files:
 * the static pod manifests of kube-apiserver, kube-controller-manager,
 * kube-scheduler and etcd with kubeadm's flags (merged with the config's
 * extraArgs), /var/lib/kubelet/config.yaml and kubeadm-flags.env. etcd's flags
 * are those Debian's etcd 3.4 understands (the --experimental-* spellings; the
 * image kubeadm v1.37 pins is etcd 3.6).
 */
import YAML from 'yaml';
import type { MemFs } from '../../ssh/host/fs';
import { MANIFEST_DIR } from '../manifest';
import { KUBELET_CONFIG, KUBELET_FLAGS_ENV } from '../node-parts';
import { argsToCommand, K8S_VERSION, type Arg, type Effective } from './config';
import { KUBERNETES_DIR, serviceVip } from './certs';

const ROOT = { name: 'root', uid: 0, home: '/root' };
export const CONTROL_PLANE = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;

function pod(name: string, image: string, command: string[], volumes: [string, string][], annotations: Record<string, string> = {}): string {
  return YAML.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { ...(Object.keys(annotations).length ? { annotations } : {}), labels: { component: name, tier: 'control-plane' }, name, namespace: 'kube-system' },
    spec: {
      containers: [{
        command, image, imagePullPolicy: 'IfNotPresent', name,
        resources: { requests: { cpu: name === 'kube-apiserver' ? '250m' : name === 'kube-controller-manager' ? '200m' : '100m' } },
        volumeMounts: volumes.map(([vname, path]) => ({ mountPath: path, name: vname, readOnly: vname !== 'etcd-data' })),
      }],
      hostNetwork: true,
      priority: 2000001000,
      priorityClassName: 'system-node-critical',
      securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
      volumes: volumes.map(([vname, path]) => ({ hostPath: { path, type: vname === 'etcd-data' ? 'DirectoryOrCreate' : 'DirectoryOrCreate' }, name: vname })),
    },
    status: {},
  });
}

export function apiserverCommand(e: Effective): string[] {
  const pki = e.cluster.certificatesDir;
  const defaults: [string, string][] = [
    ['advertise-address', e.advertiseAddress],
    ['allow-privileged', 'true'],
    ['authorization-mode', 'Node,RBAC'],
    ['client-ca-file', `${pki}/ca.crt`],
    ['enable-admission-plugins', 'NodeRestriction'],
    ['enable-bootstrap-token-auth', 'true'],
    ['etcd-cafile', `${pki}/etcd/ca.crt`],
    ['etcd-certfile', `${pki}/apiserver-etcd-client.crt`],
    ['etcd-keyfile', `${pki}/apiserver-etcd-client.key`],
    ['etcd-servers', 'https://127.0.0.1:2379'],
    ['kubelet-client-certificate', `${pki}/apiserver-kubelet-client.crt`],
    ['kubelet-client-key', `${pki}/apiserver-kubelet-client.key`],
    ['kubelet-preferred-address-types', 'InternalIP,ExternalIP,Hostname'],
    ['proxy-client-cert-file', `${pki}/front-proxy-client.crt`],
    ['proxy-client-key-file', `${pki}/front-proxy-client.key`],
    ['requestheader-allowed-names', 'front-proxy-client'],
    ['requestheader-client-ca-file', `${pki}/front-proxy-ca.crt`],
    ['requestheader-extra-headers-prefix', 'X-Remote-Extra-'],
    ['requestheader-group-headers', 'X-Remote-Group'],
    ['requestheader-username-headers', 'X-Remote-User'],
    ['secure-port', String(e.bindPort)],
    ['service-account-issuer', `https://kubernetes.default.svc.${e.cluster.networking.dnsDomain}`],
    ['service-account-key-file', `${pki}/sa.pub`],
    ['service-account-signing-key-file', `${pki}/sa.key`],
    ['service-cluster-ip-range', e.cluster.networking.serviceSubnet],
    ['tls-cert-file', `${pki}/apiserver.crt`],
    ['tls-private-key-file', `${pki}/apiserver.key`],
  ];
  return ['kube-apiserver', ...argsToCommand(defaults, e.cluster.apiServer.extraArgs)];
}

export function controllerManagerCommand(e: Effective): string[] {
  const pki = e.cluster.certificatesDir;
  const kubeconfig = `${KUBERNETES_DIR}/controller-manager.conf`;
  const defaults: [string, string][] = [
    ['authentication-kubeconfig', kubeconfig],
    ['authorization-kubeconfig', kubeconfig],
    ['bind-address', '127.0.0.1'],
    ['client-ca-file', `${pki}/ca.crt`],
    ['cluster-name', e.cluster.clusterName],
    ['cluster-signing-cert-file', `${pki}/ca.crt`],
    ['cluster-signing-key-file', `${pki}/ca.key`],
    ['controllers', '*,bootstrapsigner,tokencleaner'],
    ['kubeconfig', kubeconfig],
    ['leader-elect', 'true'],
    ['requestheader-client-ca-file', `${pki}/front-proxy-ca.crt`],
    ['root-ca-file', `${pki}/ca.crt`],
    ['service-account-private-key-file', `${pki}/sa.key`],
    ['use-service-account-credentials', 'true'],
  ];
  if (e.cluster.networking.podSubnet) {
    defaults.push(['allocate-node-cidrs', 'true'], ['cluster-cidr', e.cluster.networking.podSubnet], ['service-cluster-ip-range', e.cluster.networking.serviceSubnet]);
  }
  return ['kube-controller-manager', ...argsToCommand(defaults, e.cluster.controllerManager.extraArgs)];
}

export function schedulerCommand(e: Effective): string[] {
  const kubeconfig = `${KUBERNETES_DIR}/scheduler.conf`;
  const defaults: [string, string][] = [
    ['authentication-kubeconfig', kubeconfig], ['authorization-kubeconfig', kubeconfig], ['bind-address', '127.0.0.1'], ['kubeconfig', kubeconfig], ['leader-elect', 'true'],
  ];
  return ['kube-scheduler', ...argsToCommand(defaults, e.cluster.scheduler.extraArgs)];
}

/** etcd's flags; a member joining an existing cluster gets that cluster's members and `--initial-cluster-state=existing`. */
export function etcdCommand(e: Effective, initialCluster?: string): string[] {
  const pki = e.cluster.certificatesDir;
  const a = e.advertiseAddress;
  const defaults: [string, string][] = [
    ['advertise-client-urls', `https://${a}:2379`],
    ['cert-file', `${pki}/etcd/server.crt`],
    ['client-cert-auth', 'true'],
    ['data-dir', e.etcdDataDir],
    ['experimental-initial-corrupt-check', 'true'],
    ['experimental-watch-progress-notify-interval', '5s'],
    ['initial-advertise-peer-urls', `https://${a}:2380`],
    ['initial-cluster', initialCluster ?? `${e.nodeName}=https://${a}:2380`],
    ...(initialCluster ? [['initial-cluster-state', 'existing'] as [string, string]] : []),
    ['key-file', `${pki}/etcd/server.key`],
    ['listen-client-urls', `https://127.0.0.1:2379,https://${a}:2379`],
    ['listen-metrics-urls', 'http://127.0.0.1:2381'],
    ['listen-peer-urls', `https://${a}:2380`],
    ['name', e.nodeName],
    ['peer-cert-file', `${pki}/etcd/peer.crt`],
    ['peer-client-cert-auth', 'true'],
    ['peer-key-file', `${pki}/etcd/peer.key`],
    ['peer-trusted-ca-file', `${pki}/etcd/ca.crt`],
    ['snapshot-count', '10000'],
    ['trusted-ca-file', `${pki}/etcd/ca.crt`],
  ];
  return ['etcd', ...argsToCommand(defaults, e.cluster.etcd.local!.extraArgs as Arg[])];
}

function writeManifest(memfs: MemFs, name: string, text: string): void {
  memfs.mkdir(MANIFEST_DIR, ROOT, { parents: true });
  memfs.writeFile(`${MANIFEST_DIR}/${name}.yaml`, text, ROOT, { mode: 0o600 });
}

/** `kubeadm init phase control-plane all`. */
export function controlPlanePhase(memfs: MemFs, e: Effective, out: (l: string) => void): void {
  const repo = e.cluster.imageRepository;
  const version = e.cluster.kubernetesVersion ?? K8S_VERSION;
  const pki = e.cluster.certificatesDir;
  const certVolumes: [string, string][] = [['ca-certs', '/etc/ssl/certs'], ['k8s-certs', pki]];
  out(`[control-plane] Using manifest folder "${MANIFEST_DIR}"`);
  out('[control-plane] Creating static Pod manifest for "kube-apiserver"');
  writeManifest(memfs, 'kube-apiserver', pod('kube-apiserver', `${repo}/kube-apiserver:${version}`, apiserverCommand(e), certVolumes, { 'kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint': `${e.advertiseAddress}:${e.bindPort}` }));
  out('[control-plane] Creating static Pod manifest for "kube-controller-manager"');
  writeManifest(memfs, 'kube-controller-manager', pod('kube-controller-manager', `${repo}/kube-controller-manager:${version}`, controllerManagerCommand(e), [...certVolumes, ['kubeconfig', `${KUBERNETES_DIR}/controller-manager.conf`]]));
  out('[control-plane] Creating static Pod manifest for "kube-scheduler"');
  writeManifest(memfs, 'kube-scheduler', pod('kube-scheduler', `${repo}/kube-scheduler:${version}`, schedulerCommand(e), [['kubeconfig', `${KUBERNETES_DIR}/scheduler.conf`]]));
}

/** `kubeadm init phase etcd local` (or, with the joined cluster's members, join's etcd manifest). */
export function etcdPhase(memfs: MemFs, e: Effective, out: (l: string) => void, initialCluster?: string): void {
  out(`[etcd] Creating static Pod manifest for ${initialCluster ? '"etcd"' : `local etcd in "${MANIFEST_DIR}"`}`);
  writeManifest(memfs, 'etcd', pod('etcd', `${e.cluster.imageRepository}/etcd:3.6.5-0`, etcdCommand(e, initialCluster), [['etcd-certs', `${e.cluster.certificatesDir}/etcd`], ['etcd-data', e.etcdDataDir]], { 'kubeadm.kubernetes.io/etcd.advertise-client-urls': `https://${e.advertiseAddress}:2379` }));
}

/** The KubeletConfiguration kubeadm writes: its defaults under what the config gave. */
export function kubeletConfig(e: Pick<Effective, 'kubelet' | 'cluster'>): Record<string, unknown> {
  return {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    authentication: { anonymous: { enabled: false }, webhook: { cacheTTL: '0s', enabled: true }, x509: { clientCAFile: `${e.cluster.certificatesDir}/ca.crt` } },
    authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '0s', cacheUnauthorizedTTL: '0s' } },
    cgroupDriver: 'systemd',
    clusterDNS: [serviceVip(e.cluster.networking.serviceSubnet).replace(/\.1$/, '.10')],
    clusterDomain: e.cluster.networking.dnsDomain,
    rotateCertificates: true,
    staticPodPath: MANIFEST_DIR,
    ...e.kubelet,
  };
}

/** kubelet-start: config.yaml and kubeadm-flags.env (the caller restarts the kubelet). */
export function writeKubeletFiles(memfs: MemFs, config: Record<string, unknown>, flags: [string, string][], out: (l: string) => void): void {
  memfs.mkdir('/var/lib/kubelet', ROOT, { parents: true, mode: 0o700 });
  out(`[kubelet-start] Writing kubelet environment file with flags to file "${KUBELET_FLAGS_ENV}"`);
  memfs.writeFile(KUBELET_FLAGS_ENV, `KUBELET_KUBEADM_ARGS="${flags.map(([k, v]) => `--${k}=${v}`).join(' ')}"\n`, ROOT, { mode: 0o644 });
  out(`[kubelet-start] Writing kubelet configuration to file "${KUBELET_CONFIG}"`);
  memfs.writeFile(KUBELET_CONFIG, YAML.stringify(config), ROOT, { mode: 0o644 });
}

/** The kubelet's flags kubeadm passes (hostname-override only when the name differs from the host's). */
export function kubeletFlags(nodeName: string, hostname: string, criSocket: string | undefined, extra: Arg[], taints?: { key: string; value?: string; effect: string }[]): [string, string][] {
  const flags = new Map<string, string>([['container-runtime-endpoint', criSocket ?? 'unix:///run/containerd/containerd.sock']]);
  if (nodeName !== hostname.toLowerCase()) flags.set('hostname-override', nodeName);
  if (taints?.length) flags.set('register-with-taints', taints.map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`).join(','));
  for (const a of extra) flags.set(a.name, a.value);
  return [...flags];
}
