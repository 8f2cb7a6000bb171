/**
 * kubeadm's configuration files (kubeadm.k8s.io/v1beta4, the only version
 * kubeadm v1.37 reads): InitConfiguration, ClusterConfiguration,
 * JoinConfiguration and the KubeletConfiguration (kubelet.config.k8s.io/v1beta1)
 * documents of one multi-document YAML file, with kubeadm's defaults.
 */
import YAML from 'yaml';
import { z } from 'zod';
import type { MemFs } from '../../ssh/host/fs';
import { KEY_ALGORITHMS, type KeyAlgorithm } from '../pki';
import { parseDuration } from '@nfv-orchestrator/lib/go-duration';

const ROOT = { name: 'root', uid: 0, home: '/root' };
export const KUBEADM_API = 'kubeadm.k8s.io/v1beta4';
export const K8S_VERSION = 'v1.37.2';

/** v1beta4 extra arguments: a list of {name, value} (a map was v1beta3's). */
const Args = z.array(z.object({ name: z.string().min(1), value: z.string() }).passthrough()).default([]);
export type Arg = z.infer<typeof Args>[number];

const Taint = z.object({ key: z.string(), value: z.string().optional(), effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']) }).passthrough();
const NodeRegistration = z.object({
  name: z.string().optional(),
  criSocket: z.string().optional(),
  taints: z.array(Taint).nullable().optional(),
  kubeletExtraArgs: Args,
  ignorePreflightErrors: z.array(z.string()).default([]),
  imagePullPolicy: z.string().optional(),
}).passthrough().default({ kubeletExtraArgs: [], ignorePreflightErrors: [] });

const Timeouts = z.object({
  controlPlaneComponentHealthCheck: z.string().optional(),
  kubeletHealthCheck: z.string().optional(),
  kubernetesAPICall: z.string().optional(),
  tlsBootstrap: z.string().optional(),
  discovery: z.string().optional(),
}).passthrough().default({});

const BootstrapToken = z.object({
  token: z.string().regex(/^[a-z0-9]{6}\.[a-z0-9]{16}$/, 'the bootstrap token is invalid'),
  description: z.string().optional(),
  ttl: z.string().optional(),
  expires: z.string().optional(),
  usages: z.array(z.string()).optional(),
  groups: z.array(z.string()).optional(),
}).passthrough();
export type BootstrapTokenSpec = z.infer<typeof BootstrapToken>;

const LocalAPIEndpoint = z.object({ advertiseAddress: z.string().optional(), bindPort: z.number().int().optional() }).passthrough().default({});

const InitConfiguration = z.object({
  bootstrapTokens: z.array(BootstrapToken).optional(),
  nodeRegistration: NodeRegistration,
  localAPIEndpoint: LocalAPIEndpoint,
  /** The key upload-certs encrypts the kubeadm-certs Secret with (a new one when absent). */
  certificateKey: z.string().optional(),
  skipPhases: z.array(z.string()).default([]),
  timeouts: Timeouts,
}).passthrough();

const ClusterConfiguration = z.object({
  kubernetesVersion: z.string().optional(),
  controlPlaneEndpoint: z.string().optional(),
  clusterName: z.string().default('kubernetes'),
  certificatesDir: z.string().default('/etc/kubernetes/pki'),
  imageRepository: z.string().default('registry.k8s.io'),
  encryptionAlgorithm: z.enum(KEY_ALGORITHMS).default('RSA-2048'),
  networking: z.object({ podSubnet: z.string().optional(), serviceSubnet: z.string().default('10.96.0.0/12'), dnsDomain: z.string().default('cluster.local') }).passthrough().default({ serviceSubnet: '10.96.0.0/12', dnsDomain: 'cluster.local' }),
  apiServer: z.object({ certSANs: z.array(z.string()).default([]), extraArgs: Args }).passthrough().default({ certSANs: [], extraArgs: [] }),
  controllerManager: z.object({ extraArgs: Args }).passthrough().default({ extraArgs: [] }),
  scheduler: z.object({ extraArgs: Args }).passthrough().default({ extraArgs: [] }),
  etcd: z.object({
    local: z.object({ dataDir: z.string().default('/var/lib/etcd'), extraArgs: Args, serverCertSANs: z.array(z.string()).default([]), peerCertSANs: z.array(z.string()).default([]) }).passthrough().optional(),
    external: z.unknown().optional(),
  }).passthrough().default({}),
  certificateValidityPeriod: z.string().optional(),
  caCertificateValidityPeriod: z.string().optional(),
}).passthrough();

const JoinConfiguration = z.object({
  caCertPath: z.string().default('/etc/kubernetes/pki/ca.crt'),
  discovery: z.object({
    bootstrapToken: z.object({
      apiServerEndpoint: z.string(),
      token: z.string(),
      caCertHashes: z.array(z.string()).default([]),
      unsafeSkipCAVerification: z.boolean().default(false),
    }).passthrough().optional(),
    tlsBootstrapToken: z.string().optional(),
    file: z.unknown().optional(),
  }).passthrough(),
  nodeRegistration: NodeRegistration,
  /** Present: the node joins as a control-plane instance. */
  controlPlane: z.object({ localAPIEndpoint: LocalAPIEndpoint, certificateKey: z.string().optional() }).passthrough().optional(),
  skipPhases: z.array(z.string()).default([]),
  timeouts: Timeouts,
}).passthrough();

export type InitCfg = z.infer<typeof InitConfiguration>;

/** The ClusterConfiguration of the kubeadm-config ConfigMap, as a joining control plane reads it. */
export function parseClusterConfiguration(doc: unknown): ClusterCfg {
  const r = ClusterConfiguration.safeParse(doc);
  if (!r.success) throw new ConfigError(zodMessage('ClusterConfiguration', r.error));
  return r.data;
}

/** An InitConfiguration for a joining control plane: its registration and local endpoint. */
export function initForJoin(join: JoinCfg): InitCfg {
  return InitConfiguration.parse({ nodeRegistration: join.nodeRegistration, localAPIEndpoint: join.controlPlane?.localAPIEndpoint ?? {}, timeouts: join.timeouts });
}
export type ClusterCfg = z.infer<typeof ClusterConfiguration>;
export type JoinCfg = z.infer<typeof JoinConfiguration>;

/** Everything a configuration file held. */
export interface KubeadmConfigFile {
  init?: InitCfg;
  cluster?: ClusterCfg;
  join?: JoinCfg;
  kubelet?: Record<string, unknown>;
  /** Texts of the documents as given, by kind (kubeadm-config keeps the ClusterConfiguration). */
  warnings: string[];
}

/** A config kubeadm refuses; the message is kubeadm's. */
export class ConfigError extends Error {}

function zodMessage(kind: string, err: z.ZodError): string {
  const issue = err.issues[0];
  return `${kind}.${issue.path.join('.')}: Invalid value: ${issue.message}`;
}

export function parseConfigText(text: string): KubeadmConfigFile {
  const out: KubeadmConfigFile = { warnings: [] };
  let docs: unknown[];
  try {
    docs = YAML.parseAllDocuments(text).map((d) => {
      if (d.errors.length > 0) throw d.errors[0];
      return d.toJS();
    });
  } catch (err) {
    throw new ConfigError(`error converting YAML to JSON: yaml: ${(err as Error).message.split('\n')[0]}`);
  }
  for (const doc of docs) {
    if (doc === null || doc === undefined) continue;
    const { apiVersion, kind } = doc as { apiVersion?: string; kind?: string };
    if (!kind) throw new ConfigError("Object 'Kind' is missing in the configuration document");
    const parse = <T>(schema: z.ZodType<T>): T => {
      const r = schema.safeParse(doc);
      if (!r.success) throw new ConfigError(zodMessage(kind, r.error));
      return r.data;
    };
    if (apiVersion === 'kubelet.config.k8s.io/v1beta1' && kind === 'KubeletConfiguration') out.kubelet = doc as Record<string, unknown>;
    else if (apiVersion === 'kubeproxy.config.k8s.io/v1alpha1' && kind === 'KubeProxyConfiguration') continue;
    else if (apiVersion !== KUBEADM_API) {
      throw new ConfigError(`no kind "${kind}" is registered for version "${apiVersion ?? ''}" in scheme "k8s.io/kubernetes/cmd/kubeadm/app/util/config/strict/strict.go:44"`);
    } else if (kind === 'InitConfiguration') out.init = parse(InitConfiguration);
    else if (kind === 'ClusterConfiguration') out.cluster = parse(ClusterConfiguration);
    else if (kind === 'JoinConfiguration') out.join = parse(JoinConfiguration);
    else out.warnings.push(`[config] WARNING: Ignored configuration document with GroupVersionKind ${apiVersion}, Kind=${kind}`);
  }
  return out;
}

export function readConfigFile(memfs: MemFs, file: string): KubeadmConfigFile {
  if (!memfs.isFile(file)) throw new ConfigError(`unable to read config from "${file}" : open ${file}: no such file or directory`);
  return parseConfigText(memfs.readFile(file, ROOT).toString('utf8'));
}

export function defaultInit(): InitCfg {
  return InitConfiguration.parse({});
}

export function defaultCluster(): ClusterCfg {
  return ClusterConfiguration.parse({});
}

/** The effective init configuration (defaults filled in, as kubeadm's SetDefaults do). */
export interface Effective {
  init: InitCfg;
  cluster: ClusterCfg;
  kubelet: Record<string, unknown>;
  nodeName: string;
  advertiseAddress: string;
  bindPort: number;
  /** host:port every client uses (controlPlaneEndpoint, else the advertise address). */
  endpoint: string;
  keyAlgorithm: KeyAlgorithm;
  certValidityMs: number;
  caValidityMs: number;
  etcdDataDir: string;
}

export function effective(file: KubeadmConfigFile, hostname: string, hostAddress: string): Effective {
  const init = file.init ?? defaultInit();
  const cluster = file.cluster ?? defaultCluster();
  cluster.etcd.local ??= { dataDir: '/var/lib/etcd', extraArgs: [], serverCertSANs: [], peerCertSANs: [] };
  const nodeName = (init.nodeRegistration.name ?? hostname).toLowerCase();
  const advertiseAddress = init.localAPIEndpoint.advertiseAddress ?? hostAddress;
  const bindPort = init.localAPIEndpoint.bindPort ?? 6443;
  const cpe = cluster.controlPlaneEndpoint;
  const endpoint = cpe ? (/:\d+$/.test(cpe) ? cpe : `${cpe}:${bindPort}`) : `${advertiseAddress}:${bindPort}`;
  return {
    init, cluster, kubelet: file.kubelet ?? {}, nodeName, advertiseAddress, bindPort, endpoint,
    keyAlgorithm: cluster.encryptionAlgorithm,
    certValidityMs: parseDuration(cluster.certificateValidityPeriod) ?? 365 * 24 * 3_600_000,
    caValidityMs: parseDuration(cluster.caCertificateValidityPeriod) ?? 10 * 365 * 24 * 3_600_000,
    etcdDataDir: cluster.etcd.local.dataDir,
  };
}

/** kubeadm's own ClusterConfiguration text (the kubeadm-config ConfigMap). */
export function clusterConfigYaml(e: Effective): string {
  return YAML.stringify({ ...e.cluster, apiVersion: KUBEADM_API, kind: 'ClusterConfiguration', kubernetesVersion: e.cluster.kubernetesVersion ?? K8S_VERSION });
}

/** --arg=value flags: the defaults, overridden and extended by extraArgs (kubeadm's ArgumentsToCommand). */
export function argsToCommand(defaults: [string, string][], extra: Arg[]): string[] {
  const merged = new Map(defaults);
  for (const a of extra) merged.set(a.name, a.value);
  return [...merged].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `--${k}=${v}`);
}
