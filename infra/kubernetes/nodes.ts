/** Reading Node and Pod objects the way the engine decides on them (pure helpers). */
import type { KubeNode, KubePod } from './schemas';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/**
 * The node's Ready condition: "True", "False", or "Unknown" (the node
 * controller's verdict for a kubelet that stopped reporting, and also what a
 * node without the condition yet counts as).
 */
export function nodeReadyStatus(node: KubeNode): ConditionStatus {
  const s = node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  return s === 'True' || s === 'False' ? s : 'Unknown';
}

export function isNodeReady(node: KubeNode): boolean {
  return nodeReadyStatus(node) === 'True';
}

/** The node's InternalIP, as the kubelet registered it. */
export function nodeInternalIp(node: KubeNode): string | undefined {
  return node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
}

/** The annotation the kubelet puts on the API copy of a static pod. */
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

/** A static pod's mirror: deleting it through the API does nothing, the kubelet owns it. */
export function isMirrorPod(pod: KubePod): boolean {
  return pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined;
}

/** A pod a DaemonSet controls: the DaemonSet would put it straight back, so a drain leaves it. */
export function isDaemonSetPod(pod: KubePod): boolean {
  return (pod.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.kind === 'DaemonSet');
}
