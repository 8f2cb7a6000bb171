/**
 * Draining a node as `kubectl drain` does, one pass at a time: cordon,
 * then evict every pod bound to the node except mirror pods (the kubelet
 * owns them) and DaemonSet pods (their controller puts them back). A pod
 * whose budget says "not now" (429) or that is still terminating is
 * reported as remaining: the workflow calls drainNode again on a timer
 * until `done`, so no activity waits on a grace period.
 */
import { isDaemonSetPod, isMirrorPod } from './nodes';
import type { KubePod } from './schemas';

/** An eviction's outcome: done, the pod already gone, or refused for now (a disruption budget's 429). */
export type EvictionResult = 'evicted' | 'gone' | 'retry-later';

/** What a drain needs of a Kubernetes client (KubeClient has it). */
export interface DrainClient {
  cordonNode(name: string): Promise<unknown>;
  listPods(o: { nodeName: string }): Promise<KubePod[]>;
  evictPod(namespace: string, name: string): Promise<EvictionResult>;
}

export interface DrainOptions {
  /** Leave the node schedulable (default: cordon first, as kubectl drain does). */
  skipCordon?: boolean;
  /**
   * Pods already being deleted are not waited for: on a node that is not Ready no kubelet will
   * confirm their end (kubectl drain --skip-wait-for-delete-timeout, Cluster API on unreachable nodes).
   */
  skipWaitForDelete?: boolean;
}

export interface DrainResult {
  /** Pods evicted in this pass ("namespace/name"). */
  evicted: string[];
  /** Mirror and DaemonSet pods, left alone. */
  skipped: string[];
  /** Pods still on the node: being deleted, or a disruption budget refused (429). */
  remaining: string[];
  /** Nothing but skipped pods left on the node. */
  done: boolean;
}

export async function drainNode(client: DrainClient, nodeName: string, o: DrainOptions = {}): Promise<DrainResult> {
  if (!o.skipCordon) await client.cordonNode(nodeName);
  const result: DrainResult = { evicted: [], skipped: [], remaining: [], done: false };
  for (const pod of await client.listPods({ nodeName })) {
    const ns = pod.metadata.namespace ?? 'default';
    const id = `${ns}/${pod.metadata.name}`;
    if (isMirrorPod(pod) || isDaemonSetPod(pod)) {
      result.skipped.push(id);
    } else if (pod.metadata.deletionTimestamp) {
      if (!o.skipWaitForDelete) result.remaining.push(id); // evicted before, still shutting down
    } else {
      const r = await client.evictPod(ns, pod.metadata.name);
      if (r === 'evicted') result.evicted.push(id);
      else if (r === 'retry-later') result.remaining.push(id);
    }
  }
  // Evicted pods may still be terminating: done only when a pass found nothing to evict or wait for.
  result.done = result.evicted.length === 0 && result.remaining.length === 0;
  return result;
}
