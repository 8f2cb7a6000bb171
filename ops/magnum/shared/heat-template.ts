/**
 * The Heat template of a Magnum cluster, generated from the store: one
 * OS::Nova::Server per member of each nodegroup, named "<nodegroup>-<index>"
 * in the stack (so Heat's failure texts name the nodegroup and the node:
 * "resources.default-worker-1: Went to status ERROR ..."), on the cluster's
 * network, with cloud-config user_data that authorizes the cluster's own SSH
 * key (how the engine logs in) and the user's key pair for the image's
 * default user. Nova's key_name is not used: Nova key pairs belong to users,
 * and the stack runs as the VIM's account. Pure: no I/O.
 */
import { stringifyHot } from '../../../infra/hot/heat-yaml';
import type { StackTemplate } from '../../../infra/openstack/heat';

export interface StackMember { nodegroup: string; index: number; serverName: string; imageId: string; flavorId: string }

export interface ClusterStackSpec {
  clusterId: string;
  clusterName: string;
  networkId: string;
  subnetId?: string;
  /** OpenSSH public keys for the default user: the cluster's, then the user's key pair. */
  authorizedKeys: string[];
  members: StackMember[];
}

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
  return {
    template: {
      heat_template_version: '2018-08-31',
      description: `Magnum cluster ${spec.clusterName} (${spec.clusterId})`,
      resources,
    },
  };
}
