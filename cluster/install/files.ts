/**
 * The files the install writes on a node, as text (docs/cluster-engine.md §2).
 * Pure: what goes into a file is decided here, how it gets there (stdin of
 * `sudo tee`, mode 0600 for secrets) in steps.ts.
 */
import { stringify } from 'yaml';
import { parseDuration } from '@nfv-orchestrator/lib/go-duration';
import { endpointHost, endpointHostPort, type ClusterSecrets, type ClusterSettings, type RegistrySetting } from '../../model/cluster';
import { aptConfString, systemdEnvironment } from '../../mgmt/private-registry/config-quote';

export const CONTAINERD_SOCKET = 'unix:///run/containerd/containerd.sock';
export const KUBEADM_INIT_CONFIG = '/etc/kubernetes/kubeadm-config.yaml';
export const KUBEADM_JOIN_CONFIG = '/etc/kubernetes/kubeadm-join.yaml';

export const MODULES_LOAD = 'overlay\nbr_netfilter\n';
export const SYSCTL_K8S = 'net.bridge.bridge-nf-call-iptables = 1\nnet.bridge.bridge-nf-call-ip6tables = 1\nnet.ipv4.ip_forward = 1\n';

/** apt's proxy settings, or undefined without a proxy. */
export function aptProxyConf(proxy: ClusterSecrets['proxy']): string | undefined {
  const lines = [
    proxy?.http_proxy && `Acquire::http::Proxy ${aptConfString(proxy.http_proxy)};`,
    proxy?.https_proxy && `Acquire::https::Proxy ${aptConfString(proxy.https_proxy)};`,
  ].filter(Boolean);
  return lines.length ? `${lines.join('\n')}\n` : undefined;
}

/** A systemd drop-in giving a service (containerd, kubelet) the proxy; undefined without one. */
export function proxyDropIn(proxy: ClusterSecrets['proxy'], noProxy: string | undefined): string | undefined {
  const env = Object.entries({ HTTP_PROXY: proxy?.http_proxy, HTTPS_PROXY: proxy?.https_proxy, NO_PROXY: noProxy })
    .filter(([, v]) => v).map(([k, v]) => systemdEnvironment(k, v!));
  return proxy?.http_proxy || proxy?.https_proxy ? `[Service]\n${env.join('\n')}\n` : undefined;
}

const tomlString = (s: string) => JSON.stringify(s); // TOML basic strings escape like JSON

/**
 * containerd's config: systemd cgroups (as kubeadm's KubeletConfiguration says), registry hosts
 * from /etc/containerd/certs.d, and the registries' credentials (this file is 0600).
 */
export function containerdConfig(settings: ClusterSettings, secrets: ClusterSecrets): string {
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  const auth = settings.registries.filter((r) => r.hasCredentials && secrets.registries[r.server]).map((r) => {
    const c = secrets.registries[r.server];
    return `[${cri}.registry.configs.${tomlString(r.server)}.auth]\n  username = ${tomlString(c.username)}\n  password = ${tomlString(c.password)}\n`;
  });
  return [
    'version = 2',
    '',
    `[${cri}.containerd.runtimes.runc]`,
    '  runtime_type = "io.containerd.runc.v2"',
    `[${cri}.containerd.runtimes.runc.options]`,
    '  SystemdCgroup = true',
    `[${cri}.registry]`,
    '  config_path = "/etc/containerd/certs.d"',
    ...auth,
    '',
  ].join('\n');
}

export const registryDir = (r: RegistrySetting) => `/etc/containerd/certs.d/${r.server}`;
export const registryCaPath = (r: RegistrySetting) => `${registryDir(r)}/ca.crt`;

/** hosts.toml of one registry: plain HTTP without TLS checks (type 0), or HTTPS with its CA (type 1). */
export function registryHostsToml(r: RegistrySetting): string {
  if (r.connectionType === 0) {
    return `server = ${tomlString(`http://${r.server}`)}\n\n[host.${tomlString(`http://${r.server}`)}]\n  capabilities = ["pull", "resolve"]\n  skip_verify = true\n`;
  }
  return `server = ${tomlString(`https://${r.server}`)}\n\n[host.${tomlString(`https://${r.server}`)}]\n  capabilities = ["pull", "resolve"]\n  ca = ${tomlString(registryCaPath(r))}\n`;
}

/** The pkgs.k8s.io repository of a Kubernetes minor version. */
export function kubernetesRepo(version: string): { keyUrl: string; list: string } {
  const minor = version.split('.').slice(0, 2).join('.').replace(/^v?/, 'v');
  const base = `https://pkgs.k8s.io/core:/stable:/${minor}/deb/`;
  return { keyUrl: `${base}Release.key`, list: `deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] ${base} /\n` };
}

/** apt's version of a Kubernetes release in pkgs.k8s.io ("1.37.2" -> "1.37.2-1.1"). */
export const kubePackageVersion = (version: string) => `${version.replace(/^v/, '')}-1.1`;

export interface InitConfigInput {
  nodeName: string;
  advertiseAddress: string;
  endpoint: string;
  settings: ClusterSettings;
}

/** Kubernetes' default Lease of a kubelet (nodeLeaseDurationSeconds), renewed every quarter of it. */
const DEFAULT_NODE_LEASE_S = 40;

/**
 * The kubelet's Lease under a node-monitor-grace-period shorter than Kubernetes' default: as long as the grace period,
 * so renewed four times within it. The default Lease is renewed every 10 s: under a 10 s grace period a renewal a
 * moment late marks a healthy node Unknown.
 */
function kubeletLease(settings: ClusterSettings): { nodeLeaseDurationSeconds?: number } {
  const graceMs = parseDuration(settings.controllerManagerArgs?.['node-monitor-grace-period']);
  if (graceMs === undefined || graceMs >= DEFAULT_NODE_LEASE_S * 1000) return {};
  return { nodeLeaseDurationSeconds: Math.max(1, Math.floor(graceMs / 1000)) };
}

/** kubeadm's init configuration (v1beta4): the control-plane endpoint, CIDRs and SANs; the CAs are already in place. */
export function kubeadmInitConfig(c: InitConfigInput): string {
  const docs = [
    {
      apiVersion: 'kubeadm.k8s.io/v1beta4', kind: 'InitConfiguration',
      localAPIEndpoint: { advertiseAddress: c.advertiseAddress, bindPort: 6443 },
      nodeRegistration: { name: c.nodeName, criSocket: CONTAINERD_SOCKET },
    },
    {
      apiVersion: 'kubeadm.k8s.io/v1beta4', kind: 'ClusterConfiguration',
      kubernetesVersion: `v${c.settings.kubeVersion.replace(/^v/, '')}`,
      controlPlaneEndpoint: endpointHostPort(c.endpoint),
      networking: { podSubnet: c.settings.podCidr, serviceSubnet: c.settings.serviceCidr },
      apiServer: { certSANs: [...new Set([endpointHost(c.endpoint), c.advertiseAddress])] },
      ...(c.settings.controllerManagerArgs && Object.keys(c.settings.controllerManagerArgs).length
        ? { controllerManager: { extraArgs: Object.entries(c.settings.controllerManagerArgs).map(([name, value]) => ({ name, value })) } } : {}),
    },
    { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', cgroupDriver: 'systemd', ...kubeletLease(c.settings) },
  ];
  return docs.map((d) => stringify(d)).join('---\n');
}

export interface JoinConfigInput {
  nodeName: string;
  endpoint: string;
  token: string;
  caCertHash: string;
  /** A control-plane node's own API address (its CAs are placed beforehand, as for init). */
  controlPlane?: { advertiseAddress: string };
}

/** kubeadm's join configuration: the bootstrap token stays in this file (0600), never on a command line. */
export function kubeadmJoinConfig(c: JoinConfigInput): string {
  return stringify({
    apiVersion: 'kubeadm.k8s.io/v1beta4', kind: 'JoinConfiguration',
    discovery: { bootstrapToken: { apiServerEndpoint: endpointHostPort(c.endpoint), token: c.token, caCertHashes: [c.caCertHash] } },
    nodeRegistration: { name: c.nodeName, criSocket: CONTAINERD_SOCKET },
    ...(c.controlPlane ? { controlPlane: { localAPIEndpoint: { advertiseAddress: c.controlPlane.advertiseAddress, bindPort: 6443 } } } : {}),
  });
}

/** The lines of hosts_string, one per host entry (the seed separates them with '|'). */
export function hostsLines(hostsString: string | undefined): string[] {
  return (hostsString ?? '').split(/[|\n]/).map((l) => l.trim()).filter(Boolean);
}
