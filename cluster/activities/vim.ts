/**
 * A Tacker Kubernetes VNF's cluster registered as a Kubernetes VIM (what
 * Tacker's driver does after its install): named `vim_name`, auth_url
 * https://<endpoint>:6443, the cluster CA, and a bearer token of a service
 * account bound to cluster-admin (the TokenRequest API; the token is sealed
 * like a VIM password and never shown). The instance's vimConnectionInfo
 * gains the VIM, as Tacker's does; terminate removes both.
 */
import crypto from 'node:crypto';
import type { ActivityDeps } from '../../lcm-activities/deps';
import { updateCluster, type ClusterRow } from '../../store/repos/clusters';
import { instanceById, setInstanceVimConnectionInfo } from '../../store/repos/instances';
import { deleteVim, listVims, registerVim, updateVim, vimById } from '../../store/repos/vims';
import { apiServerUrl, openCluster } from './access';

/** The service account the VIM's token belongs to. */
export const VIM_SERVICE_ACCOUNT = { namespace: 'kube-system', name: 'nfv-orchestrator' };
/** One year: the VIM is re-registered (a new token) by every heal that rebuilds the cluster and every CA rotation. */
const TOKEN_SECONDS = 365 * 24 * 3600;

export function vimActivities(deps: ActivityDeps) {
  const { db, box } = deps;
  const registerKubernetesVim = async ({ clusterId }: { clusterId: string; opOccId?: string }): Promise<{ vimId: string }> => {
    const c = await openCluster(deps, clusterId);
    const kube = c.kube();
    const { namespace, name } = VIM_SERVICE_ACCOUNT;
    await kube.createServiceAccount(namespace, name);
    await kube.createClusterRoleBinding({ name: `${name}-cluster-admin`, clusterRole: 'cluster-admin', subjects: [{ kind: 'ServiceAccount', name, namespace }] });
    const { token } = await kube.requestToken(namespace, name, TOKEN_SECONDS);
    const authUrl = apiServerUrl(c.cluster.endpoint!);
    const fields = {
      type: 'kubernetes', authUrl, username: `system:serviceaccount:${namespace}:${name}`, passwordSealed: box.seal(token),
      project: 'default', caCert: c.pki.certs.kubernetesCa, status: 'REACHABLE', updatedAt: new Date().toISOString(),
    };
    // the same name and API server: the cluster's VIM from before (a retry, a rebuild); else a new one
    const mine = c.cluster.registeredVimId ? await vimById(db, c.cluster.registeredVimId) : undefined;
    const sameName = (await listVims(db, { projectId: c.cluster.projectId, all: false })).find((v) => v.name === c.cluster.name && v.type === 'kubernetes' && v.authUrl === authUrl);
    const existing = mine ?? sameName;
    let vimId: string;
    if (existing) {
      vimId = existing.id;
      await updateVim(db, existing, fields);
    } else {
      vimId = crypto.randomUUID();
      await registerVim(db, { id: vimId, projectId: c.cluster.projectId, name: c.cluster.name, description: `Kubernetes cluster ${c.cluster.id}`, createdAt: fields.updatedAt, ...fields });
    }
    await updateCluster(db, clusterId, { registeredVimId: vimId });
    if (c.cluster.vnfInstanceId) await showOnInstance(deps, c.cluster.vnfInstanceId, vimId);
    return { vimId };
  };
  return {
    registerKubernetesVim,
    /** After a CA rotation: the VIM's CA and token anew, if the cluster has a VIM. */
    async renewClusterVim({ clusterId }: { clusterId: string }): Promise<void> {
      const c = await openCluster(deps, clusterId);
      if (c.cluster.registeredVimId) await registerKubernetesVim({ clusterId });
    },
  };
}

/** The instance's vimConnectionInfo lists the cluster's VIM (once). */
async function showOnInstance({ db }: Pick<ActivityDeps, 'db'>, instanceId: string, vimId: string): Promise<void> {
  const inst = await instanceById(db, instanceId);
  if (!inst || inst.vimConnectionInfo.some((v) => v.vimId === vimId)) return;
  await setInstanceVimConnectionInfo(db, instanceId, [...inst.vimConnectionInfo, { id: crypto.randomUUID(), vimId, vimType: 'kubernetes', interfaceInfo: {}, accessInfo: {} }]);
}

/** The cluster's VIM goes with it, and out of its instance's vimConnectionInfo. */
export async function deregisterClusterVim({ db }: Pick<ActivityDeps, 'db'>, cluster: ClusterRow): Promise<void> {
  if (!cluster.registeredVimId) return;
  if (cluster.vnfInstanceId) {
    const inst = await instanceById(db, cluster.vnfInstanceId);
    if (inst) {
      await setInstanceVimConnectionInfo(db, inst.id, inst.vimConnectionInfo.filter((v) => v.vimId !== cluster.registeredVimId));
    }
  }
  await deleteVim(db, cluster.registeredVimId);
}
