/**
 * What the cluster engine knows of a Kubernetes cluster on VMs, shared by the
 * store (store/), the activities and the workflows (type-only there): the
 * Tacker Kubernetes VNF's cluster and a Magnum cluster are the same thing to it.
 */

/** The workflow id of a cluster's health loop (cluster/workflows/health.ts): one per cluster. */
export const healthWorkflowId = (clusterId: string) => `cluster-health-${clusterId}`;

/** Who drives the cluster: a Tacker VNF instance's Mgmt Driver, or Magnum's API. */
export const CLUSTER_KINDS = ['vnf', 'magnum'] as const;
export type ClusterKind = (typeof CLUSTER_KINDS)[number];

export const NODE_ROLES = ['master', 'worker'] as const;
export type NodeRole = (typeof NODE_ROLES)[number];

/**
 * Where a node is on its way into (or out of) the cluster. The install steps
 * it has done are kept beside it, so a retried step finds its work done.
 */
export const JOIN_STATES = ['pending', 'installing', 'joined', 'removing'] as const;
export type JoinState = (typeof JOIN_STATES)[number];

/** The per-node install steps, in order (cluster/install/steps.ts). */
export const NODE_STEPS = ['prepare', 'container runtime', 'private registries', 'kubernetes packages', 'kubeadm init', 'kubeadm join', 'kubeadm join control plane'] as const;
export type NodeStep = (typeof NODE_STEPS)[number];

/** A node's Kubernetes upgrade, in this order (cluster/install/upgrade.ts; drain and uncordon through the API). */
export const UPGRADE_STEPS = ['kubeadm package', 'kubeadm upgrade', 'drain', 'kubelet package', 'uncordon'] as const;
export type UpgradeStep = (typeof UPGRADE_STEPS)[number];

/** A node leaving the cluster, in this order. */
export const REMOVAL_STEPS = ['cordon', 'drain', 'delete the Node of', 'kubeadm reset on'] as const;
export type RemovalStep = (typeof REMOVAL_STEPS)[number];

export const HEALTH_STATUSES = ['HEALTHY', 'UNHEALTHY', 'UNKNOWN'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

/** One private registry every node is set up for (seed 000: private_registry_connection_info). */
export interface RegistrySetting {
  server: string;
  /** 0: HTTP (insecure), 1: HTTPS with the CA below. */
  connectionType: 0 | 1;
  /** PEM of the CA (from the package's certificate_path), for connection type 1. */
  caPem?: string;
  /** Lines for /etc/hosts (the seed's hosts_string). */
  hostsString?: string;
  /** Whether a username/password is sealed for it. */
  hasCredentials: boolean;
}

/** The settings every node is installed with; secrets (passwords, proxy URLs with credentials) are sealed apart. */
export interface ClusterSettings {
  kubeVersion: string;
  podCidr: string;
  serviceCidr: string;
  registries: RegistrySetting[];
  noProxy?: string;
  /** Controller-manager flags (e.g. a shorter node grace period for tests). */
  controllerManagerArgs?: Record<string, string>;
  /**
   * A highly available control plane as Tacker's script makes it: keepalived
   * holds this VIP on one live master, haproxy on every master forwards
   * HA_API_PORT to the API servers; the cluster's endpoint is vip:HA_API_PORT.
   */
  vip?: string;
  /** Nodes NotReady longer than the engine's autoHealAfterS are replaced (Magnum's label auto_healing_enabled). */
  autoHealing?: boolean;
}

/** haproxy's port on every master of a highly available control plane (Tacker's MASTER_CLUSTER_PORT). */
export const HA_API_PORT = 16443;

/** "host:port" of an endpoint kept as a host (one master's API, port 6443) or with its port (a VIP). */
export const endpointHostPort = (endpoint: string) => (/:\d+$/.test(endpoint) ? endpoint : `${endpoint}:6443`);
export const endpointHost = (endpoint: string) => endpoint.replace(/:\d+$/, '');

/** The cluster's secrets, sealed as one value: node logins, registry credentials, proxy URLs. */
export interface ClusterSecrets {
  logins: Record<NodeRole, { username: string; password?: string; privateKey?: string }>;
  registries: Record<string, { username: string; password: string }>;
  proxy?: { http_proxy?: string; https_proxy?: string };
}

/** Everything public: certificates and the service-account public key (PEM). */
export interface ClusterPkiCerts {
  kubernetesCa: string;
  etcdCa: string;
  frontProxyCa: string;
  admin: string;
  serviceAccountPublicKey: string;
}
