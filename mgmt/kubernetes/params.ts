/**
 * additionalParams.k8s_cluster_installation_param of Tacker's Kubernetes
 * cluster VNF (seed 000 part 2, and Tacker's own parameter files): the nodes'
 * logins and CPs, the CIDRs, the proxy and the private registries.
 */
import { z } from 'zod';
import { secret, secretUrl } from '../../common/secret-schema';
import { NO_PROXY, PROXY_URL } from '../../model/private-registry-params';

/** The Kubernetes release the engine installs unless the request asks for another (the simulator's control planes run it). */
export const DEFAULT_KUBE_VERSION = '1.37.2';

const cidr = () => z.string().regex(/^(\d{1,3})(\.\d{1,3}){3}\/(\d|[12]\d|3[0-2])$/, 'must be an IPv4 CIDR such as 10.0.0.0/16')
  .refine((c) => c.split('/')[0].split('.').every((o) => Number(o) <= 255), 'must be an IPv4 CIDR such as 10.0.0.0/16');
const proxyUrl = () => z.string().min(1).regex(PROXY_URL, 'must be a plain http:// or https:// URL (no quotes, spaces or control characters)');
const name = () => z.string().min(1).max(255).regex(/^[A-Za-z0-9_.-]+$/, 'must be a resource name (letters, digits, _ . -)');

const Node = z.object({
  /** The scaling aspect of this node kind (Tacker: its AutoScalingGroup); the engine finds the nodes by their CPs. */
  aspect_id: name().optional(),
  vdu_id: name().optional(),
  ssh_cp_name: name(),
  nic_cp_name: name().optional(),
  username: z.string().min(1).max(255),
  password: secret(z.string().min(1)),
});

export const MasterNodeParam = Node.extend({
  /** Pod network (kubeadm podSubnet). */
  pod_cidr: cidr().optional(),
  /** Service network (kubeadm serviceSubnet). */
  cluster_cidr: cidr().optional(),
  /** The CP (or BaseHOT port) whose address is the cluster's API endpoint: a VIP with several masters. */
  cluster_cp_name: name(),
});

export const RegistryConnection = z.object({
  /** "0": HTTP, "1": HTTPS (seed 000 gives strings; numbers are accepted too). */
  connection_type: z.union([z.enum(['0', '1']), z.literal(0), z.literal(1)]).transform((v) => Number(v) as 0 | 1),
  server: z.string().min(1).max(255).regex(/^[A-Za-z0-9.-]+(:\d{1,5})?$/, 'must be host or host:port, e.g. 192.168.0.10:5000'),
  username: z.string().min(1).max(255).optional(),
  password: secret(z.string().min(1)).optional(),
  /** The CA file in the VNF package, for connection_type 1. */
  certificate_path: z.string().min(1).optional(),
  /** Lines for /etc/hosts, separated by '|'. */
  hosts_string: z.string().max(4096).regex(/^[^\0'\\]*$/, 'must not contain quotes, backslashes or NUL').optional(),
}).superRefine((r, ctx) => {
  if (r.connection_type === 1 && !r.certificate_path) ctx.addIssue({ code: 'custom', path: ['certificate_path'], message: 'is required for connection_type 1 (HTTPS)' });
  if (!!r.username !== !!r.password) ctx.addIssue({ code: 'custom', path: [r.username ? 'password' : 'username'], message: 'username and password go together' });
});

export const K8sClusterInstallationParam = z.object({
  /** Tacker's install script: accepted for compatibility; the built-in engine does what it did. */
  script_path: z.string().min(1).optional(),
  /** The Kubernetes VIM registered for the cluster (default kubernetes-<instance id>). */
  vim_name: z.string().min(1).max(255).optional(),
  master_node: MasterNodeParam,
  worker_node: Node,
  proxy: z.object({
    http_proxy: secretUrl(proxyUrl()).optional(),
    https_proxy: secretUrl(proxyUrl()).optional(),
    no_proxy: z.string().regex(NO_PROXY, 'must be a comma-separated list of hosts, domains or CIDRs (no quotes, spaces or control characters)').optional(),
    k8s_node_cidr: cidr().optional(),
  }).optional(),
  private_registry_connection_info: z.array(RegistryConnection).max(16).optional(),
  /** Beyond Tacker: the Kubernetes release (default DEFAULT_KUBE_VERSION). */
  kubernetes_version: z.string().regex(/^v?1\.\d{1,2}\.\d{1,3}$/, 'must be a Kubernetes release such as 1.37.2').optional(),
  /** Beyond Tacker (opt-in): a node NotReady too long is healed (a heal of its VNFC, isAutomaticInvocation), as Magnum's auto_healing_enabled. */
  auto_healing_enabled: z.boolean().optional(),
});
export type K8sClusterInstallationParam = z.infer<typeof K8sClusterInstallationParam>;

export const KubernetesAdditionalParams = z.object({ k8s_cluster_installation_param: K8sClusterInstallationParam });
export type KubernetesAdditionalParams = z.infer<typeof KubernetesAdditionalParams>;
