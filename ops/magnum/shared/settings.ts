/** What the cluster engine installs a Magnum cluster with, from the labels Magnum knows. Pure (the API reads it too). */
import type { ClusterSettings } from '../../../model/cluster';
import { DEFAULT_KUBE_VERSION } from '../../../mgmt/kubernetes/params';

/** kube_tag (v1.37.2, or Magnum's v1.28.9-rancher1 style), the pod range (calico_ipv4pool, flannel_network_cidr), service_cluster_ip_range and auto_healing_enabled. */
export function settingsFromLabels(labels: Record<string, unknown>, noProxy: string | undefined, gracePeriod: string | undefined): ClusterSettings {
  const str = (k: string) => (labels[k] === undefined ? undefined : String(labels[k]));
  const kube = str('kube_tag')?.replace(/^v/, '').replace(/-.*$/, '');
  return {
    kubeVersion: kube || DEFAULT_KUBE_VERSION,
    podCidr: str('calico_ipv4pool') ?? str('flannel_network_cidr') ?? '10.100.0.0/16',
    serviceCidr: str('service_cluster_ip_range') ?? '10.254.0.0/16',
    registries: [],
    noProxy,
    ...(gracePeriod ? { controllerManagerArgs: { 'node-monitor-grace-period': gracePeriod } } : {}),
    ...(str('auto_healing_enabled')?.toLowerCase() === 'true' ? { autoHealing: true } : {}),
  };
}

