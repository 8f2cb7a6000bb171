/**
 * The Heat template of a Magnum cluster, generated from the store: one
 * OS::Nova::Server per member of each nodegroup, named "<nodegroup>-<index>"
 * in the stack (so Heat's failure texts name the nodegroup and the node:
 * "resources.default-worker-1: Went to status ERROR ..."), on the cluster's
 * network, with cloud-config user_data that authorizes the cluster's own SSH
 * key (how the engine logs in) and the user's key pair for the image's
 * default user. Nova's key_name is not used: Nova key pairs belong to users,
 * and the stack runs as the VIM's account. With master_lb_enabled, Magnum's
 * API load balancer (its lb_api.yaml, as OS::Octavia::*): a load balancer on
 * the cluster's subnet, a TCP listener on 6443, a round-robin pool with a TCP
 * health monitor, and every master a member; the stack's output api_address
 * is its VIP. Pure: no I/O.
 */
import { stringifyHot } from '../../../infra/hot/heat-yaml';
import type { StackTemplate } from '../../../infra/openstack/heat';

export interface StackMember { nodegroup: string; index: number; serverName: string; imageId: string; flavorId: string; master: boolean }

export interface ClusterStackSpec {
  clusterId: string;
  clusterName: string;
  networkId: string;
  subnetId?: string;
  /** OpenSSH public keys for the default user: the cluster's, then the user's key pair. */
  authorizedKeys: string[];
  members: StackMember[];
  /** The API load balancer's subnet (master_lb_enabled); absent: no load balancer, the first master is the endpoint. */
  apiLbSubnetId?: string;
}

/** The port of the API load balancer's listener and of the API servers behind it. */
export const API_LB_PORT = 6443;
/** The stack output holding the API load balancer's VIP. */
export const API_ADDRESS_OUTPUT = 'api_address';

/** The stack's resource name of a member: what Heat names in its reasons. */
export const resourceName = (nodegroup: string, index: number) => `${nodegroup}-${index}`;

/** Kubernetes node (and server) names are DNS labels: "<cluster>-<nodegroup>-<index>", lower case, at most 63. */
export function serverNameOf(clusterName: string, clusterId: string, nodegroup: string, index: number): string {
  const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '');
  const tail = `-${slug(nodegroup)}-${index}`;
  const head = `${slug(clusterName).slice(0, 40)}-${clusterId.slice(0, 6)}`;
  return `${head.slice(0, 63 - tail.length)}${tail}`.replace(/^-+/, 'k');
}

/** Which nodegroup a "resources.<nodegroup>-<index>" in a Heat reason is about. */
export function nodegroupsNamedIn(reason: string, nodegroups: string[]): string[] {
  return nodegroups.filter((g) => new RegExp(`resources\\.${g.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-\\d+\\b`).test(reason));
}

export function clusterStack(spec: ClusterStackSpec): StackTemplate {
  const resources: Record<string, unknown> = {};
  for (const m of spec.members) {
    const userData = `#cloud-config\n${stringifyHot({ hostname: m.serverName, ssh_pwauth: false, ssh_authorized_keys: spec.authorizedKeys })}`;
    resources[resourceName(m.nodegroup, m.index)] = {
      type: 'OS::Nova::Server',
      properties: {
        name: m.serverName,
        image: m.imageId,
        flavor: m.flavorId,
        networks: [spec.subnetId ? { network: spec.networkId, subnet: spec.subnetId } : { network: spec.networkId }],
        user_data_format: 'RAW',
        user_data: userData,
        metadata: { magnum_cluster: spec.clusterId, magnum_nodegroup: m.nodegroup },
      },
    };
  }
  const withLb = spec.apiLbSubnetId ? apiLoadBalancer(spec, spec.apiLbSubnetId) : undefined;
  return {
    template: {
      heat_template_version: '2018-08-31',
      description: `Magnum cluster ${spec.clusterName} (${spec.clusterId})`,
      resources: { ...resources, ...withLb?.resources },
      ...(withLb ? { outputs: withLb.outputs } : {}),
    },
  };
}

/** Magnum's lb_api.yaml on Octavia, with one pool member per master (reached by its address on the cluster's network). */
function apiLoadBalancer(spec: ClusterStackSpec, subnetId: string) {
  const resources: Record<string, unknown> = {
    api_lb: { type: 'OS::Octavia::LoadBalancer', properties: { name: `${spec.clusterName}-api`.slice(0, 255), vip_subnet: subnetId } },
    api_listener: { type: 'OS::Octavia::Listener', properties: { loadbalancer: { get_resource: 'api_lb' }, protocol: 'TCP', protocol_port: API_LB_PORT } },
    api_pool: { type: 'OS::Octavia::Pool', properties: { listener: { get_resource: 'api_listener' }, lb_algorithm: 'ROUND_ROBIN', protocol: 'TCP' } },
    api_monitor: { type: 'OS::Octavia::HealthMonitor', properties: { pool: { get_resource: 'api_pool' }, type: 'TCP', delay: 5, timeout: 5, max_retries: 5 } },
  };
  for (const m of spec.members.filter((x) => x.master)) {
    const server = resourceName(m.nodegroup, m.index);
    resources[`${server}-api`] = {
      type: 'OS::Octavia::PoolMember',
      properties: { pool: { get_resource: 'api_pool' }, address: { get_attr: [server, 'networks', spec.networkId, 0] }, subnet: subnetId, protocol_port: API_LB_PORT },
    };
  }
  return { resources, outputs: { [API_ADDRESS_OUTPUT]: { description: 'the VIP of the API load balancer', value: { get_attr: ['api_lb', 'vip_address'] } } } };
}
