/** Refusals several Magnum operations share, with Magnum's texts and codes. */
import { badRequest, conflict } from '../../../common/http-error';
import { Refused, type MagnumClusterRow } from '../../../store/repos/magnum/clusters';
import { isInProgress, RESIZABLE } from '../../../model/magnum/status';

export const ZERO_NODES = 'Resizing a nodegroup to zero is not supported in the provided microversion.';

/** A nodegroup's new size within its bounds (400 with Magnum's text). */
export function checkRange(group: { name: string; minNodeCount: number; maxNodeCount: number | null }, n: number): void {
  if (n < group.minNodeCount || (group.maxNodeCount !== null && n > group.maxNodeCount)) {
    throw badRequest(`Resizing ${group.name} outside the allowed range: min_node_count = ${group.minNodeCount}, max_node_count = ${group.maxNodeCount ?? 'None'}`);
  }
}

/** New bounds that fit the nodegroup's node_count (409 with Magnum's text). */
export function checkBounds(name: string, n: number, min: number, max: number | null): void {
  if (min > n) throw conflict(`min_node_count for ${name} is invalid (min_node_count (${min}) should be less or equal to node_count (${n}))`);
  if (max !== null && max < n) throw conflict(`max_node_count for ${name} is invalid (max_node_count (${max}) should be greater or equal to node_count (${n}))`);
}

/** Label keys of Kubernetes' own namespaces are the kubelet's to set (as Magnum's allow list: only these). */
const K8S_NAMESPACES = /(^|\.)(kubernetes\.io|k8s\.io)\//;
const ALLOWED_K8S_LABELS = ['node-role.kubernetes.io/', 'node.kubernetes.io/'];

export function checkNodeLabels(labels: Record<string, string>): void {
  for (const k of Object.keys(labels)) {
    if (K8S_NAMESPACES.test(k) && !ALLOWED_K8S_LABELS.some((p) => k.startsWith(p))) throw badRequest(`node_labels: the key ${k} is in a Kubernetes namespace (kubernetes.io, k8s.io) and cannot be set.`);
  }
}

/** One operation at a time per cluster (Magnum casts it and only logs the clash). */
export const notBusy = (c: MagnumClusterRow) => {
  if (isInProgress(c.status)) throw new Refused(409, `Cluster ${c.name} is ${c.status}; its nodegroups can be changed once that operation has ended.`);
};

/** Nodes join a control plane that runs: a cluster whose create failed has none. */
export const running = (verb: string) => (c: MagnumClusterRow) => {
  notBusy(c);
  if (!RESIZABLE.includes(c.status)) throw new Refused(409, `${verb} a nodegroup when the cluster status is "${c.status}" is not supported.`);
};
