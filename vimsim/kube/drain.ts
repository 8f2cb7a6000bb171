/**
 * `kubectl cordon|uncordon|drain` through the API, as kubectl's drain
 * package does it: cordon (spec.unschedulable), then the pods on the node
 * but mirror pods, refused as kubectl refuses them (DaemonSet pods without
 * --ignore-daemonsets, emptyDir without --delete-emptydir-data, no
 * controller without --force), each evicted through the Eviction API
 * (a PodDisruptionBudget's 429 retried every 5 s) and waited for until it is
 * gone or --timeout passes.
 */
import { KubeApiError, isNotFound, type KubeClient } from './client';

interface PodObj {
  metadata: { name: string; namespace: string; uid: string; annotations?: Record<string, string>; ownerReferences?: { kind: string; controller?: boolean }[] };
  spec: { volumes?: { emptyDir?: unknown }[] };
}

export interface DrainOptions {
  ignoreDaemonsets: boolean;
  deleteEmptydirData: boolean;
  force: boolean;
  /** 0: wait for ever (kubectl's default). */
  timeoutMs: number;
  out(line: string): void;
  err(line: string): void;
}

const RETRY_MS = 5_000;

/** Sets spec.unschedulable; prints as kubectl does. */
export async function setUnschedulable(client: KubeClient, node: string, unschedulable: boolean, out: (l: string) => void): Promise<void> {
  const current = await client.get<{ spec?: { unschedulable?: boolean } }>(`/api/v1/nodes/${node}`);
  const verb = unschedulable ? 'cordoned' : 'uncordoned';
  if (Boolean(current.spec?.unschedulable) === unschedulable) return out(`node/${node} already ${verb}`);
  await client.patch(`/api/v1/nodes/${node}`, { spec: { unschedulable: unschedulable || null } });
  out(`node/${node} ${verb}`);
}

/** Returns kubectl's exit code. */
export async function drain(client: KubeClient, node: string, o: DrainOptions): Promise<number> {
  await setUnschedulable(client, node, true, o.out);
  const selector = encodeURIComponent(`spec.nodeName=${node}`);
  const pods = (await client.get<{ items: PodObj[] }>(`/api/v1/pods?fieldSelector=${selector}`)).items
    .filter((p) => p.metadata.annotations?.['kubernetes.io/config.mirror'] === undefined);
  const key = (p: PodObj) => `${p.metadata.namespace}/${p.metadata.name}`;
  const controller = (p: PodObj) => p.metadata.ownerReferences?.find((r) => r.controller);
  const daemonSet = pods.filter((p) => controller(p)?.kind === 'DaemonSet');
  const problems: string[] = [];
  if (daemonSet.length && !o.ignoreDaemonsets) problems.push(`cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): ${daemonSet.map(key).join(', ')}`);
  const rest = pods.filter((p) => controller(p)?.kind !== 'DaemonSet');
  const local = rest.filter((p) => p.spec.volumes?.some((v) => v.emptyDir !== undefined));
  if (local.length && !o.deleteEmptydirData) problems.push(`cannot delete Pods with local storage (use --delete-emptydir-data to override): ${local.map(key).join(', ')}`);
  const bare = rest.filter((p) => !controller(p));
  if (bare.length && !o.force) problems.push(`cannot delete Pods that declare no controller (use --force to override): ${bare.map(key).join(', ')}`);
  if (problems.length) {
    o.err(`error: unable to drain node "${node}" due to error: ${problems.join(', ')}, continuing command...\nThere are pending nodes to be drained:\n ${node}\n${problems.join('\n')}`);
    return 1;
  }
  if (daemonSet.length) o.err(`Warning: ignoring DaemonSet-managed Pods: ${daemonSet.map(key).join(', ')}`);
  if (bare.length) o.err(`Warning: deleting Pods that declare no controller: ${bare.map(key).join(', ')}`);
  const deadline = o.timeoutMs > 0 ? Date.now() + o.timeoutMs : Infinity;
  const waiting = await Promise.all(rest.map((p) => evict(client, p, deadline, o)));
  if (waiting.some((ok) => !ok)) {
    o.err(`error: unable to drain node "${node}" due to error: error when evicting pods: global timeout reached: ${o.timeoutMs / 1000}s, continuing command...\nThere are pending nodes to be drained:\n ${node}`);
    return 1;
  }
  o.out(`node/${node} drained`);
  return 0;
}

/** Evicts one pod and waits for it to be gone; false when the deadline passed. */
async function evict(client: KubeClient, p: PodObj, deadline: number, o: DrainOptions): Promise<boolean> {
  const { name, namespace } = p.metadata;
  o.out(`evicting pod ${namespace}/${name}`);
  const path = `/api/v1/namespaces/${namespace}/pods/${name}`;
  for (;;) {
    try {
      await client.post(`${path}/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } });
      break;
    } catch (err) {
      if (isNotFound(err)) break;
      if (!(err instanceof KubeApiError && err.status === 429)) throw err;
      o.err(`error when evicting pods/"${name}" -n "${namespace}" (will retry after 5s): ${err.message}`);
    }
    if (Date.now() + RETRY_MS > deadline) return false;
    await new Promise((r) => setTimeout(r, RETRY_MS));
  }
  for (;;) {
    const current = await client.get<PodObj>(path).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
    if (!current || current.metadata.uid !== p.metadata.uid) {
      o.out(`pod/${name} evicted`);
      return true;
    }
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 500));
  }
}
