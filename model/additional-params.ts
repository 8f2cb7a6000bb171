/**
 * InstantiateVnfRequest.additionalParams: free-form, except the keys the
 * seeds define (their secrets are marked, so op occs and instances show
 * them masked). The Mgmt Driver bound to the flavour checks its own keys
 * again with the same schema (model/private-registry-params.ts).
 */
import { z } from 'zod';
import { secret } from '../common/secret-schema';
import { PrivateRegistryInstallationParam, ProxyParam } from './private-registry-params';

/** A node of k8s_cluster_installation_param (seed 000): SSH login of the VMs. */
const K8sNodeParam = z.looseObject({
  aspect_id: z.string().optional(),
  ssh_cp_name: z.string().optional(),
  nic_cp_name: z.string().optional(),
  username: z.string().optional(),
  password: secret(z.string()).optional(),
  pod_cidr: z.string().optional(),
  cluster_cidr: z.string().optional(),
  cluster_cp_name: z.string().optional(),
});

/** private_registry_connection_info[] (seed 000's table): login to a Docker private registry. */
const PrivateRegistryConnectionInfo = z.looseObject({
  connection_type: z.union([z.string(), z.number()]).optional(),
  server: z.string().optional(),
  username: z.string().optional(),
  password: secret(z.string()).optional(),
  certificate_path: z.string().optional(),
  hosts_string: z.string().optional(),
});

const K8sClusterInstallationParam = z.looseObject({
  script_path: z.string().optional(),
  vim_name: z.string().optional(),
  master_node: K8sNodeParam.optional(),
  worker_node: K8sNodeParam.optional(),
  proxy: ProxyParam.extend({ k8s_node_cidr: z.string().optional() }).optional(),
  private_registry_connection_info: z.array(PrivateRegistryConnectionInfo).optional(),
});

export const InstantiateAdditionalParams = z.looseObject({
  private_registry_installation_param: PrivateRegistryInstallationParam.optional(),
  k8s_cluster_installation_param: K8sClusterInstallationParam.optional(),
});
