/** Cluster update, UPDATE_IN_PROGRESS -> UPDATE_COMPLETE | UPDATE_FAILED (ROLLBACK_* with ?rollback=True): default-worker to node_count. */
import { runClusterOperation } from '../../../engine/magnum-status';
import type { MagnumOpInput } from '../shared/contracts';
import { resizeSteps } from '../shared/resize-steps';

export async function magnumClusterUpdate(input: MagnumOpInput): Promise<string> {
  return runClusterOperation(input.clusterId, 'UPDATE', input.rollback, () => resizeSteps(input.clusterId, input));
}
