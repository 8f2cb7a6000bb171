/**
 * CA rotation, UPDATE_IN_PROGRESS -> UPDATE_COMPLETE | UPDATE_FAILED: the
 * cluster engine's rotation (cluster/workflows/rotate-ca.ts) as a child:
 * new kubernetes, etcd and front-proxy CAs and service-account keys, node
 * by node (masters first), each Ready again before the next. Every user
 * certificate signed by the old CA stops working; a failed rotation run
 * again goes on from the node that failed.
 */
import { executeChild } from '@temporalio/workflow';
import { rotateClusterCa } from '../../../cluster/workflows/rotate-ca';
import { runClusterOperation } from '../../../engine/magnum-status';
import type { MagnumOpInput } from '../shared/contracts';

export async function magnumCaRotate({ clusterId, operationId }: MagnumOpInput): Promise<string> {
  return runClusterOperation(clusterId, 'UPDATE', false, [
    {
      name: 'rotate the cluster CA node by node',
      run: () => executeChild(rotateClusterCa, { workflowId: `${operationId}-rotate`, args: [{ clusterId }], staticSummary: `CA rotation of cluster ${clusterId}, node by node` }),
    },
  ]);
}
