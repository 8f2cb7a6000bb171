/**
 * Tacker's Kubernetes cluster VNF (seed 000 part 2): what the built-in
 * `kubernetes` Mgmt Driver does at each hook, one workflow type per hook so
 * the Web UI shows each under the operation that started it (a child of its
 * hook step). Tacker's kubernetes_mgmt.py maps here (mgmt/mapping.ts).
 *   instantiate_end: install the cluster, register it as a Kubernetes VIM
 *   scale_start:     the workers a scale-in removes leave (cordon, drain, delete the Node, reset)
 *   scale_end:       the added workers are installed and joined
 *   heal_start:      the healed workers' Nodes are removed; healed masters of an HA control plane leave etcd
 *   heal_end:        the new servers are installed and joined (masters of an HA control plane as
 *                    control-plane nodes, every haproxy updated); the one master of a cluster rebuilds it
 *   terminate_end:   the VIM is deregistered, the cluster's records and PKI deleted
 */
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { ClusterActivities } from '../activities';
import type { ClusterHookInput, NodeRef } from '../activities/types';
import { addWorkers, balanceMasters, installCluster, installNode, joinControlPlane, nodeLabel, removeMasters, removeWorkers, type WaitNote } from './engine';

const quick = proxyActivities<ClusterActivities>({
  startToCloseTimeout: '2m',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 5, nonRetryableErrorTypes: ['NodeStepFailed', 'OutboundRefused'] },
});

const progressOf = (input: ClusterHookInput) => (step: string) => quick.recordClusterProgress({ opOccId: input.opOccId, hook: input.hook, step });
/** The op's currentStep names what the engine waits for, and `resumed` once the wait is over. */
const waitNoteOf = (input: ClusterHookInput, resumed: string): WaitNote => (what) => progressOf(input)(what || resumed);

export async function kubernetesInstantiateEnd(input: ClusterHookInput): Promise<void> {
  const { clusterId, nodes, vip } = await quick.syncVnfCluster({ opOccId: input.opOccId });
  await installCluster(clusterId, nodes, vip ? { keepalivedVip: vip } : undefined, waitNoteOf(input, 'install Kubernetes'));
  await quick.registerKubernetesVim({ clusterId, opOccId: input.opOccId });
}

/** The nodes of these VNFCs, refused if one is a master (the engine scales and heals workers one by one). */
function workersOf(nodes: NodeRef[], vnfcIds: string[] | undefined, what: string): NodeRef[] {
  const picked = nodes.filter((n) => vnfcIds?.includes(n.vnfcId ?? ''));
  const master = picked.find((n) => n.role === 'master');
  if (master) throw ApplicationFailure.nonRetryable(`${what} of ${nodeLabel(master)}: the control plane cannot be scaled in; scale the workers`, 'NodeStepFailed');
  return picked;
}

export async function kubernetesScaleStart(input: ClusterHookInput): Promise<void> {
  const { clusterId, nodes } = await quick.vnfClusterNodes({ opOccId: input.opOccId });
  await removeWorkers(clusterId, workersOf(nodes, input.vnfcIds, 'scale in'), progressOf(input));
}

export async function kubernetesScaleEnd(input: ClusterHookInput): Promise<void> {
  const { clusterId, nodes } = await quick.syncVnfCluster({ opOccId: input.opOccId });
  await addWorkers(clusterId, nodes.filter((n) => n.role === 'worker' && n.joinState !== 'joined'));
}

export async function kubernetesHealStart(input: ClusterHookInput): Promise<void> {
  const { clusterId, nodes, vip } = await quick.vnfClusterNodes({ opOccId: input.opOccId });
  const healed = nodes.filter((n) => !input.vnfcIds || input.vnfcIds.includes(n.vnfcId ?? ''));
  const healedMasters = healed.filter((n) => n.role === 'master');
  if (vip && healedMasters.length > 0 && healedMasters.length < nodes.filter((n) => n.role === 'master').length) {
    // a highly available control plane keeps running: each healed master's etcd member and Node go first
    await removeMasters(clusterId, healedMasters, progressOf(input));
  } else if (healedMasters.length > 0) return; // the one control plane goes with its master: heal_end rebuilds the cluster
  for (const n of healed.filter((x) => x.role !== 'master')) {
    await progressOf(input)(`delete the Node of ${nodeLabel(n)}`);
    await quick.removeNodeStep({ clusterId, serverId: n.serverId, step: 'delete the Node of' });
  }
}

export async function kubernetesHealEnd(input: ClusterHookInput): Promise<void> {
  const { clusterId, nodes, vip } = await quick.syncVnfCluster({ opOccId: input.opOccId });
  const masters = nodes.filter((n) => n.role === 'master');
  const newMasters = masters.filter((n) => n.joinState !== 'joined');
  if (vip && newMasters.length > 0 && newMasters.length < masters.length) {
    // the replaced masters rejoin the running control plane; every haproxy learns the masters as they are now
    for (const m of newMasters) await installNode(clusterId, m);
    await balanceMasters(clusterId, masters);
    for (const m of newMasters) {
      await progressOf(input)(`kubeadm join control plane on ${nodeLabel(m)}`);
      await joinControlPlane(clusterId, m, waitNoteOf(input, `kubeadm join control plane on ${nodeLabel(m)}`));
    }
    await addWorkers(clusterId, nodes.filter((n) => n.role === 'worker' && n.joinState !== 'joined'));
    return;
  }
  const master = masters[0];
  if (master && master.joinState !== 'joined') {
    // a new control plane: the workers that were in the old one are reset and join the new one
    for (const n of nodes.filter((x) => x.role === 'worker' && x.joinState === 'joined')) {
      await progressOf(input)(`kubeadm reset on ${nodeLabel(n)}`);
      await quick.resetForRejoin({ clusterId, serverId: n.serverId });
    }
    await installCluster(clusterId, (await quick.vnfClusterNodes({ opOccId: input.opOccId })).nodes, vip ? { keepalivedVip: vip } : undefined, waitNoteOf(input, 'install Kubernetes'));
    await quick.registerKubernetesVim({ clusterId, opOccId: input.opOccId });
    return;
  }
  await addWorkers(clusterId, nodes.filter((n) => n.role === 'worker' && n.joinState !== 'joined'));
}

export async function kubernetesTerminateEnd(input: ClusterHookInput): Promise<void> {
  await quick.forgetVnfCluster({ opOccId: input.opOccId });
}
