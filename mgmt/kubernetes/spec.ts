/**
 * What the API checks before the Kubernetes cluster driver runs (seed 000
 * part 2): the parameters' shapes (params.ts), the CA files they name, and
 * that every CP they name is the flavour's, on the right node kind.
 */
import type { DriverSpec, FlavourView } from '../types';
import { KUBERNETES_HOOK_WORKFLOWS } from './hook-workflows';
import { KubernetesAdditionalParams } from './params';

const P = 'k8s_cluster_installation_param';

function checkFlavour(p: KubernetesAdditionalParams, { flavour, baseHotPorts }: FlavourView): { field: string; reason: string }[] {
  const k = p.k8s_cluster_installation_param;
  const problems: { field: string; reason: string }[] = [];
  const cps = Object.keys(flavour.cps);
  const vduOf = (cp: string) => flavour.cps[cp]?.vduId;
  const checkCp = (field: string, cp: string | undefined) => {
    if (cp !== undefined && !vduOf(cp)) problems.push({ field: `${P}.${field}`, reason: `"${cp}" is not a CP of flavour ${flavour.flavourId} (${cps.join(', ')})` });
  };
  for (const node of ['master_node', 'worker_node'] as const) {
    checkCp(`${node}.ssh_cp_name`, k[node].ssh_cp_name);
    checkCp(`${node}.nic_cp_name`, k[node].nic_cp_name);
    const vdu = k[node].vdu_id;
    if (vdu && !flavour.vdus[vdu]) problems.push({ field: `${P}.${node}.vdu_id`, reason: `"${vdu}" is not a VDU of flavour ${flavour.flavourId}` });
  }
  const masterVdu = vduOf(k.master_node.ssh_cp_name);
  const workerVdu = vduOf(k.worker_node.ssh_cp_name);
  if (masterVdu && masterVdu === workerVdu) {
    problems.push({ field: `${P}.worker_node.ssh_cp_name`, reason: `"${k.worker_node.ssh_cp_name}" is a CP of ${workerVdu}, the masters' VDU; workers need a VDU of their own` });
  }
  // The API endpoint: a CP of the flavour, or a port of its BaseHOT (Tacker's vip_CP in the complex flavour).
  const cluster = k.master_node.cluster_cp_name;
  if (!vduOf(cluster) && !baseHotPorts.includes(cluster)) {
    const choices = [...new Set([...cps, ...baseHotPorts])].join(', ');
    problems.push({ field: `${P}.master_node.cluster_cp_name`, reason: `"${cluster}" is neither a CP of flavour ${flavour.flavourId} nor a port of its BaseHOT (${choices})` });
  }
  return problems;
}

export const kubernetesSpec: DriverSpec = {
  name: 'kubernetes',
  instantiateParams: KubernetesAdditionalParams,
  packageFiles: (p: KubernetesAdditionalParams) => (p.k8s_cluster_installation_param.private_registry_connection_info ?? []).flatMap((r, i) =>
    r.certificate_path ? [{ field: `${P}.private_registry_connection_info[${i}].certificate_path`, path: r.certificate_path.replace(/^\.\//, '') }] : []),
  checkFlavour,
  // as Tacker's kubernetes_mgmt.py, which joins scaled-out VMs as workers only
  checkScale: (p: KubernetesAdditionalParams, aspectId: string) => {
    const k = p.k8s_cluster_installation_param;
    return aspectId === k.master_node.aspect_id
      ? `aspectId: "${aspectId}" is the masters' aspect (k8s_cluster_installation_param.master_node.aspect_id); the Kubernetes driver scales the workers (${k.worker_node.aspect_id ?? 'worker_node.aspect_id'})`
      : undefined;
  },
  hookWorkflows: KUBERNETES_HOOK_WORKFLOWS,
};
