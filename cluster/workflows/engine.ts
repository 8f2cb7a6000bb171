/**
 * The cluster engine's building blocks, in workflow code (deterministic, no
 * I/O): install a node, bring up the control plane, join and remove nodes.
 * Every step is an activity of cluster/activities, idempotent; waits for the
 * API and for a node to be Ready are status polls between workflow timers.
 * The Tacker driver's hook workflows (vnf-hooks.ts) and Magnum's cluster
 * operations compose these.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ApplicationFailure, ParentClosePolicy, patched, proxyActivities, sleep, startChild } from '@temporalio/workflow';
import { clusterHealth } from './health';
import type { ClusterActivities } from '../activities';
import type { NodeRef, WaitCheck } from '../activities/types';
import { REMOVAL_STEPS, healthWorkflowId } from '../../model/cluster';

/** SSH and kubeadm steps: long, heartbeating; a command that failed is not retried (the failure says why). */
export const nodeActs = proxyActivities<ClusterActivities>({
  startToCloseTimeout: '45m',
  heartbeatTimeout: '1m',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 3, nonRetryableErrorTypes: ['NodeStepFailed', 'OutboundRefused'] },
});

/** Short calls (the Kubernetes API, the store). */
export const quick = proxyActivities<ClusterActivities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 5, nonRetryableErrorTypes: ['NodeStepFailed', 'OutboundRefused'] },
});

/** etcd refuses a removal right after a membership change: retried on a longer schedule than the quick calls. */
const memberRemoval = proxyActivities<ClusterActivities>({
  startToCloseTimeout: '5m',
  heartbeatTimeout: '1m',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '15s', maximumAttempts: 10, nonRetryableErrorTypes: ['NodeStepFailed', 'OutboundRefused'] },
});

export const INSTALL_STEPS = ['prepare', 'container runtime', 'private registries', 'kubernetes packages'] as const;

/** "worker wn-1 (127.20.0.7)", as failures and progress name a node. */
export const nodeLabel = (n: NodeRef) => `${n.role} ${n.name} (${n.address})`;

/**
 * Polls `check` on timers (1 s, doubling up to the check's pollMaxMs, CLUSTER_POLL_MAX_MS; 10 s when it does
 * not say) until it holds; fails naming `what` after `timeoutS`.
 */
export async function waitUntil(what: string, timeoutS: number, check: () => Promise<WaitCheck>): Promise<void> {
  const deadline = Date.now() + timeoutS * 1000;
  let delay = 1000;
  let last: string | undefined;
  for (;;) {
    const r = await check();
    if (r.ok) return;
    last = r.detail;
    if (Date.now() + delay > deadline) {
      throw ApplicationFailure.nonRetryable(`${what} not reached within ${timeoutS} s${last ? ` (last: ${last})` : ''}`, 'NodeStepFailed');
    }
    await sleep(delay);
    delay = Math.min(delay * 2, r.pollMaxMs ?? 10_000);
  }
}

/**
 * Runs one task per node at once and waits for all of them, even when one
 * fails: no node's step is left running behind a failed operation (a retry
 * would run it a second time beside it), and the failure names every node
 * that failed, not just the first.
 */
export async function onEveryNode<T>(nodes: T[], task: (n: T) => Promise<void>): Promise<void> {
  const results = await Promise.allSettled(nodes.map(task));
  const failed = results.flatMap((r) => (r.status === 'rejected' ? [rootMessage(r.reason)] : []));
  if (failed.length === 1) throw (results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason;
  if (failed.length > 1) throw ApplicationFailure.nonRetryable(`${failed.length} nodes failed: ${failed.join('; ')}`, 'NodeStepFailed');
}

function rootMessage(e: unknown): string {
  let c: unknown = e;
  while (c && typeof c === 'object' && 'cause' in c && (c as { cause?: unknown }).cause) c = (c as { cause: unknown }).cause;
  return c instanceof Error ? c.message : String(c);
}

/** Steps 1-4 of docs/cluster-engine.md on one node (those it has not done yet). */
export async function installNode(clusterId: string, node: NodeRef): Promise<void> {
  for (const step of INSTALL_STEPS) await nodeActs.runNodeStep({ clusterId, serverId: node.serverId, step });
}

/**
 * What an operation shows while it waits on something outside it (Magnum's
 * status_reason, a VNF op's currentStep); '' when the wait is over.
 */
export type WaitNote = (what: string) => Promise<void>;

/** How long a master waits for its control-plane images: a slow registry, or the embedded cloud's toolchain still building. */
const IMAGES_WAIT_S = 60 * 60;

/**
 * The master's control-plane images pulled before kubeadm runs there (its
 * preflight would fail on them): waited for on timers, the wait noted while
 * it lasts. Operations started before this step replay without it.
 */
async function awaitControlPlaneImages(clusterId: string, master: NodeRef, note?: WaitNote): Promise<void> {
  if (!patched('control-plane-images')) return;
  let shown: string | undefined;
  await waitUntil(`the control-plane images on ${nodeLabel(master)}`, IMAGES_WAIT_S, async () => {
    const r = await nodeActs.controlPlaneImages({ clusterId, serverId: master.serverId });
    const now = r.ok ? undefined : `waiting for the control-plane images on ${nodeLabel(master)}: ${r.detail ?? 'not pulled yet'}`;
    if (now !== shown && note) await note(now ?? '');
    shown = now;
    return r;
  });
}

/** The first master: the CAs placed, kubeadm init, then the API answering the product's admin certificate. */
export async function initControlPlane(clusterId: string, master: NodeRef, note?: WaitNote): Promise<void> {
  await awaitControlPlaneImages(clusterId, master, note);
  await nodeActs.runNodeStep({ clusterId, serverId: master.serverId, step: 'kubeadm init' });
  await waitUntil(`the Kubernetes API of ${nodeLabel(master)}`, 600, () => quick.apiHealth({ clusterId }));
  await waitNodeReady(clusterId, master);
}

export async function waitNodeReady(clusterId: string, node: NodeRef): Promise<void> {
  await waitUntil(`${nodeLabel(node)} Ready`, 600, () => quick.nodeReady({ clusterId, serverId: node.serverId }));
  await quick.markNodeJoined({ clusterId, serverId: node.serverId });
}

/** kubeadm join with a fresh bootstrap token, then Ready. */
export async function joinNode(clusterId: string, node: NodeRef): Promise<void> {
  await nodeActs.runNodeStep({ clusterId, serverId: node.serverId, step: 'kubeadm join' });
  await waitNodeReady(clusterId, node);
}

/** A master joining the control plane (the CAs placed, its etcd member added), then Ready. */
export async function joinControlPlane(clusterId: string, master: NodeRef, note?: WaitNote): Promise<void> {
  await awaitControlPlaneImages(clusterId, master, note);
  await nodeActs.runNodeStep({ clusterId, serverId: master.serverId, step: 'kubeadm join control plane' });
  await waitNodeReady(clusterId, master);
}

/**
 * Masters being replaced leave a control plane that keeps running: each one's
 * etcd member removed through a peer (one membership change at a time) and
 * its Node deleted. The server itself goes with the stack.
 */
export async function removeMasters(clusterId: string, masters: NodeRef[], progress: (step: string) => Promise<void>): Promise<void> {
  for (const m of masters) {
    await progress(`remove the etcd member of ${nodeLabel(m)}`);
    await memberRemoval.removeEtcdMemberOf({ clusterId, serverId: m.serverId });
  }
}

/** haproxy and keepalived on every master, for the masters as they are now (after a heal or a scale too). */
export async function balanceMasters(clusterId: string, masters: NodeRef[]): Promise<void> {
  await onEveryNode(masters, (m) => nodeActs.configureLoadBalancer({ clusterId, serverId: m.serverId }));
}

/**
 * How several masters share one API endpoint: a VIP that keepalived keeps on
 * one live master, haproxy on each (Tacker's HA flavours), or a load balancer
 * of the cloud in front of them (Magnum's master_lb_enabled, on Octavia).
 */
export type ApiFront = { keepalivedVip: string } | { loadBalancerVip: string };

/**
 * The whole cluster on its nodes: every node installed (in parallel), the
 * control plane on the first master, then the other masters one at a time
 * (each adds an etcd member: one membership change at a time), then the
 * workers. Several masters need an API front (`front`). `note` shows what
 * the install waits for (the control-plane images).
 */
export async function installCluster(clusterId: string, nodes: NodeRef[], front?: ApiFront, note?: WaitNote): Promise<void> {
  const masters = nodes.filter((n) => n.role === 'master');
  if (masters.length === 0 || (masters.length > 1 && !front)) {
    throw ApplicationFailure.nonRetryable(`the cluster has ${masters.length} masters; ${masters.length ? 'several masters need a VIP for their API (a port such as Tacker\'s vip_CP as cluster_cp_name, or Magnum\'s master_lb_enabled)' : 'it needs one'}`, 'NodeStepFailed');
  }
  await onEveryNode(nodes, (n) => installNode(clusterId, n));
  if (front && 'keepalivedVip' in front) await balanceMasters(clusterId, masters);
  await initControlPlane(clusterId, masters[0], note);
  for (const m of masters.slice(1)) await joinControlPlane(clusterId, m, note);
  await onEveryNode(nodes.filter((n) => n.role !== 'master'), (n) => joinNode(clusterId, n));
  await watchHealth(clusterId);
}

/** The cluster's health workflow, started once and left running on its own (it ends with the cluster). */
export async function watchHealth(clusterId: string): Promise<void> {
  const intervalS = await quick.healthInterval();
  try {
    await startChild(clusterHealth, {
      workflowId: healthWorkflowId(clusterId), args: [{ clusterId, intervalS }],
      parentClosePolicy: ParentClosePolicy.ABANDON, staticSummary: `Health of cluster ${clusterId}, every ${intervalS} s`,
    });
  } catch (e) {
    if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e;
  }
}

/** New workers: installed and joined. */
export async function addWorkers(clusterId: string, nodes: NodeRef[]): Promise<void> {
  await onEveryNode(nodes, async (n) => {
    await installNode(clusterId, n);
    await joinNode(clusterId, n);
  });
}

/** Workers leaving: cordon, drain, delete the Node, reset the node (in that order; the progress names each). */
export async function removeWorkers(clusterId: string, nodes: NodeRef[], progress: (step: string) => Promise<void>): Promise<void> {
  for (const n of nodes) {
    for (const step of REMOVAL_STEPS) {
      await progress(`${step} ${nodeLabel(n)}`);
      await waitUntil(`${step} ${nodeLabel(n)}`, 600, () => nodeActs.removeNodeStep({ clusterId, serverId: n.serverId, step }));
    }
  }
}
