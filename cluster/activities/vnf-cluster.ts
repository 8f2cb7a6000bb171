/**
 * The Tacker Kubernetes VNF's side of the cluster engine: its cluster is
 * made from the instance (k8s_cluster_installation_param, sealed with the
 * instantiate request), its nodes are the instance's VNFCs (the VDU of
 * master_node.ssh_cp_name are masters, of worker_node.ssh_cp_name workers),
 * reached on those CPs; the API endpoint is cluster_cp_name's address.
 */
import crypto from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from '../../lcm-activities/deps';
import { opContext } from '../../lcm-activities/op-context';
import { loadOpOcc } from '../../lcm-activities/records';
import { clusterNodes, clusterOfVnf, createCluster, deleteCluster, syncClusterNodes, updateCluster, type ClusterRow } from '../../store/repos/clusters';
import { packageFile } from '../../store/repos/package-files';
import { updateOpOcc } from '../../store/repos/op-occs';
import { redact } from '../../common/secrets';
import { heatForVim } from '../../infra/vim';
import { endHealthLoop } from './health';
import { vnfcAddress } from '../../infra/vnfc-address';
import type { InstantiatedVnfInfo } from '../../infra/vnf-info';
import { DEFAULT_KUBE_VERSION, KubernetesAdditionalParams, type K8sClusterInstallationParam } from '../../mgmt/kubernetes/params';
import type { VnfdFlavour } from '../../model/vnfd';
import { HA_API_PORT, type ClusterSecrets, type ClusterSettings, type RegistrySetting } from '../../model/cluster';
import { newClusterPki, sealPki } from '../pki';
import { apiServerUrl, nodeRefOf } from './access';
import type { ClusterHookInput, ClusterNodes } from './types';
import { deregisterClusterVim } from './vim';

/** Kubernetes node names are DNS labels: the VDU and the VNFC id's start ("masternode-49330b17"), stable across heals. */
const nodeNameOf = (serverName: string) => serverName.toLowerCase().replace(/[^a-z0-9.-]/g, '-').replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '').slice(0, 63) || 'node';

function settingsOf(k: K8sClusterInstallationParam, caPems: Record<string, string>, gracePeriod: string | undefined): ClusterSettings {
  const registries: RegistrySetting[] = (k.private_registry_connection_info ?? []).map((r) => ({
    server: r.server, connectionType: r.connection_type, caPem: r.certificate_path ? caPems[r.certificate_path] : undefined,
    hostsString: r.hosts_string, hasCredentials: !!r.username,
  }));
  return {
    kubeVersion: k.kubernetes_version?.replace(/^v/, '') ?? DEFAULT_KUBE_VERSION,
    podCidr: k.master_node.pod_cidr ?? '192.168.0.0/16', serviceCidr: k.master_node.cluster_cidr ?? '10.96.0.0/12',
    registries, noProxy: k.proxy?.no_proxy,
    ...(k.auto_healing_enabled ? { autoHealing: true } : {}),
    ...(gracePeriod ? { controllerManagerArgs: { 'node-monitor-grace-period': gracePeriod } } : {}),
  };
}

function secretsOf(k: K8sClusterInstallationParam): ClusterSecrets {
  return {
    logins: { master: { username: k.master_node.username, password: k.master_node.password }, worker: { username: k.worker_node.username, password: k.worker_node.password } },
    registries: Object.fromEntries((k.private_registry_connection_info ?? []).filter((r) => r.username && r.password).map((r) => [r.server, { username: r.username!, password: r.password! }])),
    proxy: k.proxy && { http_proxy: k.proxy.http_proxy, https_proxy: k.proxy.https_proxy },
  };
}

export function vnfClusterActivities(deps: ActivityDeps) {
  const { db, box, log } = deps;

  /** The instance, its flavour and its k8s_cluster_installation_param (validated again: it came from the database). */
  const context = async (opOccId: string) => {
    const ctx = await opContext({ db, box }, opOccId);
    const { op } = ctx;
    const [inst, flavour] = [await ctx.instance(), await ctx.flavour()];
    const parsed = KubernetesAdditionalParams.safeParse((await ctx.instantiateInput()).additionalParams ?? {});
    if (!parsed.success) throw ApplicationFailure.nonRetryable(`VNF instance ${inst.id}: additionalParams.k8s_cluster_installation_param is invalid: ${parsed.error.message}`, 'NodeStepFailed');
    if (!inst.vimId) throw ApplicationFailure.nonRetryable(`VNF instance ${inst.id} has no VIM`, 'NodeStepFailed');
    return { op, inst, flavour, k: parsed.data.k8s_cluster_installation_param, vimId: inst.vimId };
  };

  /** The VNFCs as nodes, with their SSH addresses, and the API endpoint. */
  const nodesOf = async (flavour: VnfdFlavour, info: InstantiatedVnfInfo, k: K8sClusterInstallationParam, vimId: string, stackRef: string) => {
    const heat = await heatForVim(db, box, vimId);
    const roles = { master: flavour.cps[k.master_node.ssh_cp_name]?.vduId, worker: flavour.cps[k.worker_node.ssh_cp_name]?.vduId };
    const nodes = [];
    for (const v of info.vnfcResourceInfo) {
      const role = v.vduId === roles.master ? 'master' as const : v.vduId === roles.worker ? 'worker' as const : undefined;
      if (!role) continue;
      const address = await vnfcAddress(heat, v, (role === 'master' ? k.master_node : k.worker_node).ssh_cp_name);
      nodes.push({ serverId: v.computeResource.resourceId, name: nodeNameOf(`${v.vduId}-${v.id.slice(0, 8)}`), address, role, nodegroup: `${role}s`, hostKeyId: v.id, vnfcId: v.id });
    }
    const firstMaster = info.vnfcResourceInfo.find((v) => v.vduId === roles.master);
    let endpoint: string | undefined;
    let vip: string | undefined;
    if (firstMaster && flavour.cps[k.master_node.cluster_cp_name]) endpoint = await vnfcAddress(heat, firstMaster, k.master_node.cluster_cp_name);
    else if (firstMaster) {
      // a port of the BaseHOT's top stack (Tacker's vip_CP): the masters' VIP, haproxy on each behind it
      const [name, id] = stackRef.split('/');
      const port = await heat.getResource(name, id, k.master_node.cluster_cp_name).catch(() => undefined);
      vip = (port?.attributes as { fixed_ips?: { ip_address?: string }[] } | undefined)?.fixed_ips?.[0]?.ip_address;
      endpoint = vip && `${vip}:${HA_API_PORT}`;
    }
    return { nodes, endpoint, vip };
  };

  return {
    /**
     * The instance's cluster as it is now: made (with its PKI) the first time, its nodes
     * following the VNFCs (added, kept, removed). Returns ids and addresses only.
     */
    async syncVnfCluster({ opOccId }: { opOccId: string }): Promise<ClusterNodes> {
      const { inst, flavour, k, vimId } = await context(opOccId);
      const info = inst.instantiatedVnfInfo;
      if (!info || !inst.stackId) throw ApplicationFailure.nonRetryable(`VNF instance ${inst.id} is not instantiated`, 'NodeStepFailed');
      let cluster: ClusterRow | undefined = await clusterOfVnf(db, inst.id);
      if (!cluster) {
        const caPems: Record<string, string> = {};
        for (const r of k.private_registry_connection_info ?? []) {
          if (r.certificate_path) caPems[r.certificate_path] = (await packageFile(db, inst.vnfPkgId, r.certificate_path.replace(/^\.\//, '')))?.toString('utf8') ?? '';
        }
        const name = k.vim_name ?? `kubernetes-${inst.id}`;
        const pki = sealPki(box, await newClusterPki({ clusterName: name }));
        cluster = await createCluster(db, {
          id: crypto.randomUUID(), projectId: inst.projectId, kind: 'vnf', name, vnfInstanceId: inst.id, vimId,
          settings: settingsOf(k, caPems, deps.cfg.cluster.nodeMonitorGracePeriod), secretsSealed: box.sealJson(secretsOf(k)), createdAt: new Date().toISOString(),
        }, { certs: pki.certs, keysSealed: pki.sealedKeys });
      }
      const { nodes, endpoint, vip } = await nodesOf(flavour, info, k, vimId, `vnf-${inst.id}/${inst.stackId}`);
      if (!endpoint) throw ApplicationFailure.nonRetryable(`VNF instance ${inst.id}: no address for cluster_cp_name ${k.master_node.cluster_cp_name}`, 'NodeStepFailed');
      if (endpoint !== cluster.endpoint || vip !== cluster.settings.vip) {
        await updateCluster(db, cluster.id, { endpoint, apiAddress: apiServerUrl(endpoint), settings: { ...cluster.settings, vip } });
      }
      const rows = await syncClusterNodes(db, cluster.id, nodes.map(({ vnfcId: _v, ...n }) => n));
      return { clusterId: cluster.id, nodes: rows.map(nodeRefOf), ...(vip ? { vip } : {}) };
    },

    /** The cluster's nodes as recorded (no VIM calls). */
    async vnfClusterNodes({ opOccId }: { opOccId: string }): Promise<ClusterNodes> {
      const op = await loadOpOcc(db, opOccId);
      const cluster = await clusterOfVnf(db, op.vnfInstanceId);
      if (!cluster) throw ApplicationFailure.nonRetryable(`VNF instance ${op.vnfInstanceId} has no Kubernetes cluster (instantiate_end did not install one)`, 'NodeStepFailed');
      return { clusterId: cluster.id, nodes: (await clusterNodes(db, cluster.id)).map(nodeRefOf), ...(cluster.settings.vip ? { vip: cluster.settings.vip } : {}) };
    },

    /** terminate_end: the cluster's VIM deregistered, its records and PKI gone. */
    async forgetVnfCluster({ opOccId }: { opOccId: string }): Promise<void> {
      const op = await loadOpOcc(db, opOccId);
      const cluster = await clusterOfVnf(db, op.vnfInstanceId);
      if (!cluster) return;
      await deregisterClusterVim(deps, cluster);
      await deleteCluster(db, cluster.id);
      await endHealthLoop(deps, cluster.id);
      log.info({ clusterId: cluster.id, vnfInstanceId: op.vnfInstanceId }, 'cluster forgotten');
    },

    /** What a cluster hook is doing now, in the op occ's currentStep. */
    async recordClusterProgress({ opOccId, hook, step }: ClusterHookInput & { step: string }): Promise<void> {
      await updateOpOcc(db, opOccId, { currentStep: redact(`${hook} hook: ${step}`) });
    },
  };
}
