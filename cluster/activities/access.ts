/**
 * What an activity needs to act on a cluster: its row, settings and opened
 * secrets, its current PKI, a Kubernetes API client with the engine's admin
 * certificate, and SSH to its nodes. Opened per activity; nothing of it
 * leaves the activity (workflows see ids and addresses only).
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from '../../lcm-activities/deps';
import { sshToServer } from '../../lcm-activities/server-ssh';
import { clusterById, clusterNodes, clusterPki, type ClusterNodeRow, type ClusterRow } from '../../store/repos/clusters';
import { KubeClient } from '../../infra/kubernetes';
import type { SshSession } from '../../ssh';
import { endpointHostPort, type ClusterSecrets } from '../../model/cluster';
import { adminPair, openPki, type ClusterPki } from '../pki';
import type { NodeRef } from './types';

export interface ClusterAccess {
  cluster: ClusterRow;
  secrets: ClusterSecrets;
  pki: ClusterPki;
  nodes: ClusterNodeRow[];
  node(serverId: string): ClusterNodeRow;
  /** The API at the cluster's endpoint (a master's :6443, or the VIP's haproxy) as the engine's admin (CN=admin, O=system:masters). */
  kube(): KubeClient;
  ssh(node: ClusterNodeRow): Promise<SshSession>;
  /** Every secret of the cluster, for masking what a node prints. */
  secretValues: string[];
}

export const apiServerUrl = (endpoint: string) => `https://${endpointHostPort(endpoint)}`;

export const nodeRefOf = (n: ClusterNodeRow): NodeRef => ({
  serverId: n.serverId, name: n.name, address: n.address, role: n.role, nodegroup: n.nodegroup, joinState: n.joinState,
  vnfcId: n.hostKeyId !== n.serverId ? n.hostKeyId : undefined,
});

/** A PKI generation of the cluster, keys opened. */
export async function pkiOf(deps: Pick<ActivityDeps, 'db' | 'box'>, cluster: Pick<ClusterRow, 'id' | 'name'>, generation: number): Promise<ClusterPki> {
  const row = await clusterPki(deps.db, cluster.id, generation);
  if (!row) throw ApplicationFailure.nonRetryable(`cluster ${cluster.id} has no PKI generation ${generation}`, 'NodeStepFailed');
  return openPki(deps.box, { clusterName: cluster.name, generation, certs: row.certs, sealedKeys: row.keysSealed });
}

/** The cluster as an activity acts on it; `generation` picks another PKI generation than the current (a CA rotation under way). */
export async function openCluster(deps: ActivityDeps, clusterId: string, generation?: number): Promise<ClusterAccess> {
  const cluster = await clusterById(deps.db, clusterId);
  if (!cluster) throw ApplicationFailure.nonRetryable(`cluster ${clusterId} not found`, 'NodeStepFailed');
  const secrets = deps.box.openJson<ClusterSecrets>(cluster.secretsSealed);
  const pki = await pkiOf(deps, cluster, generation ?? cluster.pkiGeneration);
  const nodes = await clusterNodes(deps.db, clusterId);
  const secretValues = [
    ...Object.values(secrets.logins).flatMap((l) => [l.password, l.privateKey]),
    ...Object.values(secrets.registries).map((r) => r.password), secrets.proxy?.http_proxy, secrets.proxy?.https_proxy,
  ].filter((v): v is string => !!v);
  let kube: KubeClient | undefined;
  return {
    cluster, secrets, pki, nodes, secretValues,
    node: (serverId) => {
      const n = nodes.find((x) => x.serverId === serverId);
      if (!n) throw ApplicationFailure.nonRetryable(`server ${serverId} is not a node of cluster ${clusterId}`, 'NodeStepFailed');
      return n;
    },
    kube: () => {
      if (!cluster.endpoint) throw ApplicationFailure.nonRetryable(`cluster ${clusterId} has no API endpoint yet`, 'NodeStepFailed');
      const admin = adminPair(pki);
      kube ??= new KubeClient({ server: apiServerUrl(cluster.endpoint), caPem: pki.certs.kubernetesCa, credentials: { clientCertPem: admin.certPem, clientKeyPem: admin.keyPem } });
      return kube;
    },
    ssh: (node) => {
      if (!cluster.vimId) throw ApplicationFailure.nonRetryable(`cluster ${clusterId} has no VIM`, 'NodeStepFailed');
      return sshToServer(deps, {
        vimId: cluster.vimId, serverId: node.serverId, hostKeyId: node.hostKeyId, host: node.address, creds: secrets.logins[node.role], secrets: secretValues,
        log: (m) => deps.log.info({ clusterId, serverId: node.serverId }, m),
      });
    },
  };
}
