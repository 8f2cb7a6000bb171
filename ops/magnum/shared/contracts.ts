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

export interface ClusterNodesOut { clusterId: string; nodes: NodeRef[] }

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

export const magnumStackName = (clusterId: string) => `magnum-${clusterId}`;
