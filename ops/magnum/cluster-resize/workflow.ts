/** Cluster resize, UPDATE_IN_PROGRESS -> UPDATE_COMPLETE | UPDATE_FAILED: one nodegroup to its new size (shared/resize-steps.ts). */
import { runClusterOperation } from '../../../engine/magnum-status';
import type { MagnumOpInput } from '../shared/contracts';
import { resizeSteps } from '../shared/resize-steps';

export async function magnumClusterResize(input: MagnumOpInput): Promise<string> {
  return runClusterOperation(input.clusterId, 'UPDATE', input.rollback, () => resizeSteps(input.clusterId, input));
}
