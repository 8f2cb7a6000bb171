/**
 * Workflow building blocks of the Magnum operations (deterministic, no I/O):
 * the cluster's stack created, converged or deleted with status polls on
 * workflow timers, a deadline over a step (create_timeout), and the cluster
 * engine's install of the nodes the stack holds.
 */
import { ApplicationFailure, CancellationScope, isCancellation, proxyActivities, proxyLocalActivities, sleep, type ActivityOptions, type LocalActivityOptions } from '@temporalio/workflow';
import { localUnder, STACK_POLLS_LOCAL } from '../../../workflow-steps/activities';
import type { NodeRef } from '../../../cluster/activities/types';
import { pollStack, sent, type HeatPolling, type StackAction } from '../../../workflow-steps/stack';
import { addWorkers, installCluster, installNode, joinControlPlane, type WaitNote } from '../../../cluster/workflows/engine';
import type { MagnumActivities } from './activities';

/** Store and Heat calls: short, retried; a refusal that a retry cannot fix is non-retryable. */
const MAGNUM_OPTIONS: ActivityOptions & LocalActivityOptions = {
  startToCloseTimeout: '2m',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 10, nonRetryableErrorTypes: ['OutboundRefused', 'InvalidInput', 'StackFailed', 'NodeStepFailed', 'VimRejected'] },
};
export const magnum = proxyActivities<MagnumActivities>(MAGNUM_OPTIONS);
/** The stack polls of a wait as local activities, as the VNF ones (workflow-steps/activities.ts stackPolls). */
const magnumStackPolls = localUnder(STACK_POLLS_LOCAL, magnum, proxyLocalActivities<MagnumActivities>(MAGNUM_OPTIONS));

/** Polls the cluster's stack until <action>_COMPLETE; *_FAILED fails with Heat's reason (an engine restart is driven on). */
export async function waitStack(clusterId: string, action: StackAction, poll: HeatPolling, sentAt?: number): Promise<void> {
  await pollStack({
    status: () => magnumStackPolls().magnumStackStatus({ clusterId }),
    redrive: () => magnum.redriveMagnumStack({ clusterId }),
    gone: 'the stack of the cluster is gone',
  }, action, poll, sentAt);
}

/** The stack made (once) and CREATE_COMPLETE. */
export async function createClusterStack(clusterId: string, poll: HeatPolling): Promise<void> {
  await waitStack(clusterId, 'CREATE', poll, await sent(() => magnum.createMagnumStack({ clusterId })));
}

/** The stack converged to the store's members (PUT of the generated template), and the cluster's nodes to the stack's servers. */
export async function convergeClusterStack(clusterId: string, poll: HeatPolling): Promise<void> {
  await waitStack(clusterId, 'UPDATE', poll, await sent(() => magnum.updateMagnumStack({ clusterId })));
  // servers the update removed are no longer nodes (a CA rotation or health check must not look for them)
  await magnum.syncMagnumNodes({ clusterId });
}

/**
 * The stack deleted, whatever is stuck: a DELETE_FAILED stack is deleted
 * again after a pause (MAGNUM_DELETE_RETRY_PAUSE_S, 30 s, doubling: 30 s,
 * 1, 2, 4 min); after that the step fails naming the resources that would
 * not go, and a new delete starts over.
 */
export async function deleteClusterStack(clusterId: string, poll: HeatPolling, firstPauseMs: number): Promise<void> {
  const pauses = [1, 2, 4, 8].map((k) => k * firstPauseMs);
  for (let attempt = 0; ; attempt++) {
    if (!(await magnum.deleteMagnumStack({ clusterId }))) return;
    try {
      await waitStack(clusterId, 'DELETE', poll);
      return;
    } catch (e) {
      if (attempt >= pauses.length) {
        const stuck = await magnum.stuckMagnumResources({ clusterId });
        const cause = e instanceof Error ? e.message : String(e);
        throw ApplicationFailure.nonRetryable(`the stack would not delete after ${attempt + 1} attempts: ${cause}${stuck.length ? `; left: ${stuck.join('; ')}` : ''}`, 'StackFailed');
      }
      await sleep(pauses[attempt]);
    }
  }
}

/**
 * Runs `fn`, failing it when the deadline (workflow time, ms) passes first:
 * what runs is cancelled and the failure says what was cut short.
 */
export async function withDeadline<T>(deadline: number, what: string, timeoutText: string, fn: () => Promise<T>): Promise<T> {
  const left = deadline - Date.now();
  if (left <= 0) throw ApplicationFailure.nonRetryable(`${timeoutText} before ${what}`, 'Timeout');
  try {
    return await CancellationScope.withTimeout(left, fn);
  } catch (e) {
    if (isCancellation(e) && Date.now() >= deadline) throw ApplicationFailure.nonRetryable(`${timeoutText} during ${what}`, 'Timeout');
    throw e;
  }
}

/** Magnum shows no step: what the install waits for goes to status_reason while it lasts. */
const waitNoteOf = (clusterId: string): WaitNote => (what) => magnum.recordClusterWait({ clusterId, statusReason: what });

/** Kubernetes on the nodes of a new cluster: every node installed, kubeadm init, the others joined, health watched. */
export async function installOnNodes(clusterId: string): Promise<NodeRef[]> {
  const { nodes, apiLb } = await magnum.syncMagnumNodes({ clusterId });
  await installCluster(clusterId, nodes, apiLb ? { loadBalancerVip: apiLb } : undefined, waitNoteOf(clusterId));
  await magnum.labelMagnumNodes({ clusterId });
  return nodes;
}

/**
 * The stack's nodes that are not in Kubernetes yet, installed and joined: a
 * new master (one replacing another) as a control-plane node, one at a time
 * (each adds an etcd member), then the workers.
 */
export async function joinNewNodes(clusterId: string): Promise<void> {
  const { nodes } = await magnum.syncMagnumNodes({ clusterId });
  for (const m of nodes.filter((n) => n.joinState !== 'joined' && n.role === 'master')) {
    await installNode(clusterId, m);
    await joinControlPlane(clusterId, m, waitNoteOf(clusterId));
  }
  await addWorkers(clusterId, nodes.filter((n) => n.joinState !== 'joined' && n.role !== 'master'));
  await magnum.labelMagnumNodes({ clusterId });
}
