/**
 * Cluster delete, DELETE_IN_PROGRESS -> DELETE_COMPLETE (then the rows and
 * the PKI are removed, and GET answers 404) | DELETE_FAILED: the stack
 * deleted, a stuck one deleted again on timers until it goes or the step
 * fails naming what is left; a new delete then starts over and works once
 * the cloud lets go.
 */
import { runClusterOperation } from '../../../engine/magnum-status';
import type { MagnumOpInput } from '../shared/contracts';
import { deleteClusterStack, magnum } from '../shared/steps';

export async function magnumClusterDelete(input: MagnumOpInput): Promise<string> {
  const { clusterId } = input;
  return runClusterOperation(clusterId, 'DELETE', false, async () => {
    const { deleteRetryPauseMs } = await magnum.describeMagnumOperation({ clusterId });
    return [{ name: 'delete the stack', irreversible: true, run: () => deleteClusterStack(clusterId, input, deleteRetryPauseMs) }];
  });
}
