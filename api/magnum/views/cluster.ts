/**
 * A cluster as Magnum shows it (controllers/v1/cluster.py): the list's
 * summary fields, or every field (detail, show); stack_id before 1.13,
 * cluster_id from it; faults while *_FAILED; node and master counts summed
 * over the nodegroups.
 */
import type { NodegroupRow } from '../../../store/repos/magnum/clusters';
import {
  addressesOfGroup, coeVersionOf, faultsOf, masterAddresses, masterCountOf, nodeAddresses, nodeCountOf, type ClusterFacts,
} from '../../../ops/magnum/shared/cluster-facts';
import type { Microversion } from '../microversion';
import { links, magnumTime, orNull } from './common';

const SUMMARY = ['uuid', 'name', 'cluster_template_id', 'keypair', 'docker_volume_size', 'labels', 'node_count', 'status', 'master_flavor_id', 'flavor_id', 'create_timeout', 'master_count', 'health_status', 'stack_id', 'cluster_id', 'links'];

export function clusterDict(f: ClusterFacts, base: string, v: Microversion, detail = true): Record<string, unknown> {
  const { row } = f;
  const a = row.attrs;
  const full: Record<string, unknown> = {
    uuid: row.id, name: row.name, cluster_template_id: row.templateId, keypair: orNull(a.keypair),
    docker_volume_size: orNull(a.docker_volume_size), labels: a.labels, labels_overridden: a.labels_overridden,
    labels_added: a.labels_added, labels_skipped: a.labels_skipped, master_flavor_id: orNull(a.master_flavor_id),
    flavor_id: orNull(a.flavor_id), create_timeout: a.create_timeout, discovery_url: orNull(a.discovery_url),
    node_count: nodeCountOf(f), master_count: masterCountOf(f), status: row.status, status_reason: row.statusReason,
    health_status: f.engine?.healthStatus ?? null, health_status_reason: f.engine?.healthStatusReason ?? {},
    api_address: f.engine?.apiAddress ?? null, coe_version: coeVersionOf(f), container_version: f.engine ? 'containerd' : null,
    project_id: row.projectId, user_id: row.userId, node_addresses: nodeAddresses(f), master_addresses: masterAddresses(f),
    fixed_network: orNull(a.fixed_network), fixed_subnet: orNull(a.fixed_subnet), floating_ip_enabled: a.floating_ip_enabled,
    master_lb_enabled: a.master_lb_enabled, merge_labels: a.merge_labels, trace_id: row.traceId,
    links: links(base, 'clusters', row.id), created_at: magnumTime(row.createdAt), updated_at: magnumTime(row.updatedAt),
  };
  if (v.minor >= 13) full.cluster_id = row.stackId;
  else full.stack_id = row.stackId;
  const faults = faultsOf(f);
  if (faults) full.faults = faults;
  return detail ? full : Object.fromEntries(Object.entries(full).filter(([k]) => SUMMARY.includes(k)));
}

const NG_SUMMARY = ['uuid', 'name', 'flavor_id', 'node_count', 'role', 'is_default', 'image_id', 'status', 'stack_id', 'links'];

export function nodegroupDict(f: ClusterFacts, g: NodegroupRow, base: string, v: Microversion, detail = true): Record<string, unknown> {
  const full: Record<string, unknown> = {
    id: g.id, uuid: g.uuid, name: g.name, cluster_id: f.row.id, project_id: g.projectId, docker_volume_size: g.dockerVolumeSize,
    labels: g.labels, labels_overridden: {}, labels_added: {}, labels_skipped: {}, flavor_id: g.flavorId, image_id: g.imageId,
    node_addresses: addressesOfGroup(f, g), node_count: g.nodeCount, role: g.role, max_node_count: g.maxNodeCount,
    min_node_count: g.minNodeCount, is_default: g.isDefault, stack_id: f.row.stackId, status: g.status, status_reason: g.statusReason,
    version: g.version, merge_labels: false,
    links: [{ href: `${base}/v1/clusters/${f.row.id}/nodegroups/${g.uuid}`, rel: 'self' }, { href: `${base}/clusters/${f.row.id}/nodegroups/${g.uuid}`, rel: 'bookmark' }],
    created_at: magnumTime(g.createdAt), updated_at: magnumTime(g.updatedAt),
  };
  if (v.minor >= 14) {
    full.node_labels = g.nodeLabels;
    full.node_taints = g.nodeTaints;
  }
  return detail ? full : Object.fromEntries(Object.entries(full).filter(([k]) => NG_SUMMARY.includes(k)));
}
