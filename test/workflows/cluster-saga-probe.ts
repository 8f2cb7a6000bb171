/**
 * A three-step cluster operation on the saga engine with the Magnum status
 * policy, for test/e2e/saga-magnum-status.test.ts. Each step and compensation is
 * one call of the test's `step` activity, which fails where the test says.
 */
import { proxyActivities } from '@temporalio/workflow';
import { runClusterOperation } from '../../engine/magnum-status';

interface ProbeActivities { step(a: { clusterId: string; name: string }): Promise<void> }
const { step } = proxyActivities<ProbeActivities>({ startToCloseTimeout: '10s', retry: { maximumAttempts: 1 } });

export interface ClusterProbeInput { clusterId: string; autoRollback: boolean }

export async function clusterSagaProbe(i: ClusterProbeInput): Promise<string> {
  const call = (name: string) => () => step({ clusterId: i.clusterId, name });
  return runClusterOperation(i.clusterId, 'CREATE', i.autoRollback, async () => [
    { name: 'create stack', run: call('create stack'), compensate: call('delete stack') },
    { name: 'kubeadm init on master 1 (10.0.0.5)', run: call('init master'), compensate: call('reset master') },
    { name: 'join of worker 2 (10.0.0.7)', run: call('join worker') },
  ]);
}
