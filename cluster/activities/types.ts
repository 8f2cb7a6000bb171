/** What the cluster engine's workflows and activities pass each other: ids and addresses, never secrets. */
import type { JoinState, NodeRole, NodeStep } from '../../model/cluster';
export type { RemovalStep } from '../../model/cluster';
import type { LcmHook } from '../../model/vnfd';

export interface NodeRef {
  serverId: string;
  /** The Kubernetes node name. */
  name: string;
  address: string;
  role: NodeRole;
  nodegroup: string;
  joinState: JoinState;
  /** The VNFC this node is (Tacker's Kubernetes VNF). */
  vnfcId?: string;
}

export interface ClusterNodes {
  clusterId: string;
  nodes: NodeRef[];
  /** The VIP keepalived keeps on the masters of a highly available control plane (absent: one master's own API). */
  vip?: string;
}

/** A Tacker hook run as a child workflow: the op occ it belongs to and the VNFCs it is about. */
export interface ClusterHookInput { opOccId: string; hook: LcmHook; vnfcIds?: string[] }

/** One check of something a workflow waits for on timers (a node Ready, the API healthy, a step of a node's removal). */
export interface WaitCheck {
  ok: boolean;
  detail?: string;
  /** The longest the workflow waits before it checks again (CLUSTER_POLL_MAX_MS); absent in histories from before the setting. */
  pollMaxMs?: number;
}

export interface NodeStepInput { clusterId: string; serverId: string; step: NodeStep }

/**
 * Replacing nodes that stay NotReady (auto-healing), implemented by what drives the cluster
 * (ops/auto-heal.ts: Magnum's resize, Tacker's heal). `skipped` says why nothing started.
 */
export interface AutoHealActivities {
  autoHealNodes(i: { clusterId: string; serverIds: string[] }): Promise<{ started?: string; skipped?: string }>;
}
