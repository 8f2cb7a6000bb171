/** What the Magnum operations' workflows, activities and the API pass each other: ids only. */
import type { NodeRef } from '../../../cluster/activities/types';

export interface MagnumOpInput {
  clusterId: string;
  /** The workflow id: the operation the cluster row names (status writes are fenced on it). */
  operationId: string;
  /** First interval between Heat status polls. */
  heatPollMs: number;
  /** The longest interval between two Heat status polls (HEAT_POLL_MAX_MS; absent: 15 s). */
  heatPollMaxMs?: number;
  /** Magnum's ?rollback=True: a failure undoes what the operation did (ROLLBACK_*). */
  rollback: boolean;
}

/** The cluster's nodes; apiLb: the VIP of its API load balancer, when it has one. */
export interface ClusterNodesOut { clusterId: string; nodes: NodeRef[]; apiLb?: string }

/** A resize's plan, made once (it lands in the history): what leaves, and the members afterwards. */
export interface ResizePlan {
  nodegroupId: number;
  nodegroup: string;
  removed: NodeRef[];
  /** The members before and after. */
  before: number[];
  members: number[];
  added: number;
}

/** An upgrade's plan, made once: the target, the masters one at a time (the first with `kubeadm upgrade apply`), the workers in batches. */
export interface UpgradePlan {
  version: string;
  /** The version the cluster ran before: where a rollback takes the nodes back. */
  from: string;
  masters: NodeRef[];
  workerBatches: NodeRef[][];
}

export const magnumStackName = (clusterId: string) => `magnum-${clusterId}`;
