/**
 * Cluster create, CREATE_IN_PROGRESS -> CREATE_COMPLETE | CREATE_FAILED:
 *   the PKI and the cluster's SSH key pair -> the stack (masters and one
 *   group per nodegroup) CREATE_COMPLETE -> Kubernetes on the nodes (every
 *   node installed, kubeadm init on the first master, the others joined) and
 *   the health workflow started.
 * create_timeout bounds the whole: when it passes, what runs is cancelled and
 * the cluster is CREATE_FAILED naming the step it cut short. Resources of a
 * failed create are kept (as Magnum); delete removes them.
 */
import { workflowInfo } from '@temporalio/workflow';
import { runClusterOperation } from '../../../engine/magnum-status';
import type { Step } from '../../../workflow-steps/step';
import type { MagnumOpInput } from '../shared/contracts';
import { createClusterStack, installOnNodes, magnum, withDeadline } from '../shared/steps';

export async function magnumClusterCreate(input: MagnumOpInput): Promise<string> {
  const { clusterId } = input;
  return runClusterOperation(clusterId, 'CREATE', false, async (): Promise<Step[]> => {
    const { createTimeoutMin } = await magnum.describeMagnumOperation({ clusterId });
    const deadline = workflowInfo().startTime.getTime() + createTimeoutMin * 60_000;
    const timedOut = `create_timeout of ${createTimeoutMin} minute(s) reached`;
    const bounded = (what: string, fn: () => Promise<unknown>) => () => withDeadline(deadline, what, timedOut, fn).then(() => undefined);
    return [
      { name: 'make the cluster PKI and SSH key pair', run: bounded('making the cluster PKI', () => magnum.prepareMagnumCluster({ clusterId })) },
      { name: 'create the stack', run: bounded('the stack create', () => createClusterStack(clusterId, input)) },
      { name: 'install Kubernetes', run: bounded('the Kubernetes install', () => installOnNodes(clusterId)) },
    ];
  });
}
