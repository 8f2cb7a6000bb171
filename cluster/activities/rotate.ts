/**
 * CA rotation as activities: a new PKI generation (kept until the rotation
 * ends), each node moved onto it (its pkiGeneration says whether it is), and
 * the cluster switched over at the end, when the VIM's token is renewed (the
 * old service-account key no longer verifies it).
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from '../../lcm-activities/deps';
import { addClusterPki, clusterById, clusterPki, setNodeJoinState, updateCluster } from '../../store/repos/clusters';
import { rotateMaster, rotateWorker } from '../install/rotate';
import { issueClientCert, kubeconfig, newClusterPki, sealPki, caPair } from '../pki';
import { apiServerUrl, nodeRefOf, openCluster } from './access';
import { onNode, pkiFiles } from './nodes';
import type { ClusterNodes } from './types';

export function rotateActivities(deps: ActivityDeps) {
  const { db, box } = deps;
  return {
    /** The next PKI generation (made once; a retried rotation finds it), and the nodes masters first. */
    async beginCaRotation({ clusterId }: { clusterId: string }): Promise<ClusterNodes & { generation: number }> {
      const cluster = await clusterById(db, clusterId);
      if (!cluster) throw ApplicationFailure.nonRetryable(`cluster ${clusterId} not found`, 'NodeStepFailed');
      const generation = cluster.pkiGeneration + 1;
      if (!(await clusterPki(db, clusterId, generation))) {
        const pki = sealPki(box, await newClusterPki({ clusterName: cluster.name, generation }));
        await addClusterPki(db, clusterId, generation, { certs: pki.certs, keysSealed: pki.sealedKeys });
      }
      const c = await openCluster(deps, clusterId, generation);
      const order = [...c.nodes].sort((a, b) => (a.role === b.role ? a.name.localeCompare(b.name) : a.role === 'master' ? -1 : 1));
      return { clusterId, generation, nodes: order.map(nodeRefOf) };
    },

    /** One node onto the new generation; done (and skipped) once its pkiGeneration says so. */
    async rotateNodeCa({ clusterId, serverId, generation }: { clusterId: string; serverId: string; generation: number }): Promise<'rotated' | 'already'> {
      const c = await openCluster(deps, clusterId, generation);
      const node = c.node(serverId);
      if (node.pkiGeneration >= generation) return 'already';
      if (node.role === 'master') {
        // the old API server is asked with the old CA and admin certificate: the new ones are not its
        const before = await openCluster(deps, clusterId, generation - 1);
        await onNode(c, node, 'CA rotation', (s) => rotateMaster(s,
          { nodeName: node.name, advertiseAddress: node.address, endpoint: c.cluster.endpoint!, settings: c.cluster.settings }, pkiFiles(c.pki),
          { apiDown: () => waitApiDown(() => before.kube().healthz().then((h) => h.status < 500, () => false)) }));
      } else {
        const client = await issueClientCert(caPair(c.pki), { cn: `system:node:${node.name}`, o: ['system:nodes'] });
        const conf = kubeconfig({ clusterName: c.cluster.name, server: apiServerUrl(c.cluster.endpoint!), caPem: c.pki.certs.kubernetesCa, user: `system:node:${node.name}`, clientCertPem: client.certPem, clientKeyPem: client.keyPem });
        await onNode(c, node, 'CA rotation', (s) => rotateWorker(s, c.pki.certs.kubernetesCa, conf));
      }
      await setNodeJoinState(db, clusterId, serverId, { joinState: node.joinState, pkiGeneration: generation });
      return 'rotated';
    },

    /** Every node is on the new generation: it becomes the cluster's. */
    async finishCaRotation({ clusterId, generation }: { clusterId: string; generation: number }): Promise<void> {
      await updateCluster(db, clusterId, { pkiGeneration: generation });
    },
  };
}

/** Until the old API server stops answering (at most 2 min: the restart goes on, and the wait for Ready judges it). */
async function waitApiDown(answers: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline && (await answers())) await new Promise((r) => setTimeout(r, 500));
}
