/**
 * The cluster engine's node activities: one install step on one node over
 * SSH, the checks through the Kubernetes API, and a node's way out. A step
 * the node has done is skipped (recorded per node); a failure names the
 * step and the node ("kubeadm join on worker wn-1 (127.20.0.7): ...") and is
 * not retried automatically: the operation's policy decides (FAILED_TEMP for
 * a VNF, *_FAILED for Magnum), and a retry re-runs the step.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ActivityDeps } from '../../lcm-activities/deps';
import { recordNodeStep, setNodeJoinState, type ClusterNodeRow } from '../../store/repos/clusters';
import { isNodeReady, nodeReadyStatus, KubeApiError } from '../../infra/kubernetes';
import { SshError, type SshSession } from '../../ssh';
import { kubeadmInit, kubeadmJoin, kubeadmReset, pullControlPlaneImages, removeEtcdMember, type PkiFile } from '../install/control-plane';
import { configureLoadBalancer } from '../install/load-balancer';
import { aptEnv, configureRegistries, installContainerRuntime, installKubernetesPackages, prepareNode, type NodeInstall } from '../install/steps';
import type { NodeStep } from '../../model/cluster';
import { bootstrapTokenSecret, caCertHash, newBootstrapToken, type ClusterPki } from '../pki';
import { openCluster, type ClusterAccess } from './access';
import { computeHostLabel } from './compute-host-label';
import type { NodeStepInput, RemovalStep, WaitCheck } from './types';

const label = (n: ClusterNodeRow) => `${n.role} ${n.name} (${n.address})`;

/** The CA files kubeadm takes as a user-provided CA (it makes every other certificate from them). */
export function pkiFiles(pki: ClusterPki): PkiFile[] {
  const d = '/etc/kubernetes/pki';
  return [
    { path: `${d}/ca.crt`, content: pki.certs.kubernetesCa, secret: false }, { path: `${d}/ca.key`, content: pki.keys.kubernetesCa, secret: true },
    { path: `${d}/front-proxy-ca.crt`, content: pki.certs.frontProxyCa, secret: false }, { path: `${d}/front-proxy-ca.key`, content: pki.keys.frontProxyCa, secret: true },
    { path: `${d}/etcd/ca.crt`, content: pki.certs.etcdCa, secret: false }, { path: `${d}/etcd/ca.key`, content: pki.keys.etcdCa, secret: true },
    { path: `${d}/sa.pub`, content: pki.certs.serviceAccountPublicKey, secret: false }, { path: `${d}/sa.key`, content: pki.keys.serviceAccount, secret: true },
  ];
}

/** Runs `fn` on the node over SSH, heartbeating; a failure becomes one that names the step and the node. */
export async function onNode<T>(c: ClusterAccess, node: ClusterNodeRow, step: string, fn: (s: SshSession) => Promise<T>): Promise<T> {
  const beat = setInterval(() => Context.current().heartbeat({ step }), 5_000);
  let session: SshSession | undefined;
  try {
    session = await c.ssh(node);
    const s = session;
    // a cancel (FORCEFUL) closes the session, which ends the remote command, and ends this activity
    return await Promise.race([fn(s), Context.current().cancelled.then(() => { throw new Error('cancelled'); })]);
  } catch (e) {
    if (e instanceof ApplicationFailure) throw e;
    const detail = session ? session.redact((e as Error).message) : (e as Error).message;
    // a command that failed or a login refused needs a change or the operator, not a quick repeat
    const retriable = !(e instanceof SshError) || /connect|timed out|connection lost/i.test(e.name + e.message) && !/auth/i.test(e.name);
    const failure = `${step} on ${label(node)}: ${detail}`;
    throw retriable ? ApplicationFailure.retryable(failure, 'NodeStepTransient') : ApplicationFailure.nonRetryable(failure, 'NodeStepFailed');
  } finally {
    clearInterval(beat);
    await session?.close().catch(() => undefined);
  }
}

/** Whether the API answers the engine's admin certificate (false while it is coming up). */
async function apiAnswers(c: ClusterAccess): Promise<boolean> {
  try {
    return (await c.kube().healthz()).status === 200;
  } catch {
    return false;
  }
}

export function nodeActivities(deps: ActivityDeps) {
  const { db } = deps;
  const activities = {
    async runNodeStep({ clusterId, serverId, step }: NodeStepInput): Promise<'done' | 'already'> {
      const c = await openCluster(deps, clusterId);
      const node = c.node(serverId);
      if (node.doneSteps.includes(step)) return 'already';
      const install: NodeInstall = { settings: c.cluster.settings, secrets: c.secrets };
      await onNode(c, node, step, async (s) => {
        switch (step as NodeStep) {
          case 'prepare': return prepareNode(s, install);
          case 'container runtime': return installContainerRuntime(s, install);
          case 'private registries': return configureRegistries(s, install);
          case 'kubernetes packages': return installKubernetesPackages(s, install);
          case 'kubeadm init': {
            await kubeadmInit(s, { nodeName: node.name, advertiseAddress: node.address, endpoint: c.cluster.endpoint!, settings: c.cluster.settings }, pkiFiles(c.pki), () => apiAnswers(c));
            return;
          }
          case 'kubeadm join':
          case 'kubeadm join control plane': {
            const token = newBootstrapToken();
            await c.kube().createSecret('kube-system', bootstrapTokenSecret(token, { ttlSeconds: 3600, description: `join of ${node.name}` }));
            // a control-plane node gets the cluster's CAs first, as the first master did; kubeadm makes the rest
            const controlPlane = step === 'kubeadm join control plane' ? { advertiseAddress: node.address, pki: pkiFiles(c.pki) } : undefined;
            await kubeadmJoin(s, { nodeName: node.name, endpoint: c.cluster.endpoint!, token: token.token, caCertHash: caCertHash(c.pki.certs.kubernetesCa), controlPlane },
              async () => (await c.kube().getNode(node.name)) !== undefined);
          }
        }
      });
      await recordNodeStep(db, clusterId, serverId, step);
      return 'done';
    },

    /** haproxy and keepalived on a master of a highly available control plane, for the masters as they are now. */
    async configureLoadBalancer({ clusterId, serverId }: { clusterId: string; serverId: string }): Promise<void> {
      const c = await openCluster(deps, clusterId);
      const node = c.node(serverId);
      const vip = c.cluster.settings.vip;
      if (!vip) throw ApplicationFailure.nonRetryable(`cluster ${clusterId} has no VIP to balance`, 'NodeStepFailed');
      const masters = c.nodes.filter((n) => n.role === 'master' && n.joinState !== 'removing').map((n) => ({ name: n.name, address: n.address }));
      await onNode(c, node, 'load balancer', (s) => configureLoadBalancer(s, { clusterId, vip, masters, self: node.name }, aptEnv(c.secrets, c.cluster.settings.noProxy)));
    },

    /**
     * A master being replaced leaves etcd: its member is removed from another joined master
     * (its Node too), so the new server joins a cluster that keeps its quorum.
     */
    async removeEtcdMemberOf({ clusterId, serverId }: { clusterId: string; serverId: string }): Promise<void> {
      const c = await openCluster(deps, clusterId);
      const gone = c.node(serverId);
      const peers = c.nodes.filter((n) => n.role === 'master' && n.serverId !== serverId && n.joinState === 'joined');
      if (peers.length === 0) throw ApplicationFailure.nonRetryable(`no other master of cluster ${clusterId} to remove the etcd member of ${label(gone)} from`, 'NodeStepFailed');
      let last: unknown;
      for (const peer of peers) {
        try {
          await onNode(c, peer, `remove the etcd member of ${gone.name} on`, (s) => removeEtcdMember(s, gone.address, aptEnv(c.secrets, c.cluster.settings.noProxy)));
          await c.kube().deleteNode(gone.name).catch((e: unknown) => { if (!(e instanceof KubeApiError && e.status === 404)) throw e; });
          return;
        } catch (e) {
          last = e;
        }
      }
      // "unhealthy cluster" right after a membership change, or a peer down: the activity's retries try again
      throw ApplicationFailure.retryable((last as Error).message, 'NodeStepTransient');
    },

    /** The API's /healthz with the engine's admin certificate. */
    async apiHealth({ clusterId, generation }: { clusterId: string; generation?: number }): Promise<WaitCheck> {
      const c = await openCluster(deps, clusterId, generation);
      try {
        const h = await c.kube().healthz();
        return { ok: h.status === 200, detail: `healthz ${h.status} ${h.body.slice(0, 100)}` };
      } catch (e) {
        return { ok: false, detail: (e as Error).message.slice(0, 200) };
      }
    },

    /** A master's control-plane images pulled (ok), or why they cannot be yet; done when kubeadm already ran there. */
    async controlPlaneImages({ clusterId, serverId }: { clusterId: string; serverId: string }): Promise<WaitCheck> {
      const c = await openCluster(deps, clusterId);
      const node = c.node(serverId);
      if (node.doneSteps.includes('kubeadm init') || node.doneSteps.includes('kubeadm join control plane')) return { ok: true };
      const why = await onNode(c, node, 'kubeadm config images pull', (s) => pullControlPlaneImages(s, `v${c.cluster.settings.kubeVersion.replace(/^v/, '')}`));
      return why ? { ok: false, detail: why } : { ok: true };
    },

    /** The node's Ready condition, as the API reports it. */
    async nodeReady({ clusterId, serverId, generation }: { clusterId: string; serverId: string; generation?: number }): Promise<{ ok: boolean; detail?: string }> {
      const c = await openCluster(deps, clusterId, generation);
      const node = c.node(serverId);
      try {
        const n = await c.kube().getNode(node.name);
        if (!n) return { ok: false, detail: `no Node ${node.name} registered` };
        return { ok: isNodeReady(n), detail: `Ready=${nodeReadyStatus(n)}` };
      } catch (e) {
        return { ok: false, detail: (e as Error).message.slice(0, 200) };
      }
    },

    async markNodeJoined({ clusterId, serverId }: { clusterId: string; serverId: string }): Promise<void> {
      const c = await openCluster(deps, clusterId);
      const node = c.node(serverId);
      await c.kube().labelNode(node.name, {
        'magnum.openstack.org/role': node.role, 'magnum.openstack.org/nodegroup': node.nodegroup,
        ...(node.role === 'worker' ? { 'node-role.kubernetes.io/worker': '' } : {}),
        ...await computeHostLabel(deps, c, node),
      });
      await setNodeJoinState(db, clusterId, serverId, { joinState: 'joined', pkiGeneration: c.cluster.pkiGeneration });
    },

    /** One step of a node's way out (REMOVAL_STEPS, in order); each is done when re-run. */
    async removeNodeStep({ clusterId, serverId, step }: { clusterId: string; serverId: string; step: RemovalStep }): Promise<{ ok: boolean; detail?: string }> {
      const c = await openCluster(deps, clusterId);
      const node = c.nodes.find((x) => x.serverId === serverId);
      if (!node) return { ok: true }; // gone already
      await setNodeJoinState(db, clusterId, serverId, { joinState: 'removing' });
      const api = async (fn: () => Promise<{ ok: boolean; detail?: string } | unknown>): Promise<{ ok: boolean; detail?: string }> => {
        try {
          const r = await fn();
          return r && typeof r === 'object' && 'ok' in r ? r as { ok: boolean; detail?: string } : { ok: true };
        } catch (e) {
          if (e instanceof KubeApiError && e.status === 404) return { ok: true }; // the Node is gone already
          throw ApplicationFailure.retryable(`${step} ${label(node)}: ${(e as Error).message}`, 'NodeStepTransient');
        }
      };
      switch (step) {
        case 'cordon': return api(() => c.kube().cordonNode(node.name));
        // one pass of evictions; the workflow calls again on a timer until the node is empty
        case 'drain': return api(async () => {
          const k = await c.kube().getNode(node.name);
          const r = await c.kube().drainNode(node.name, { skipWaitForDelete: k !== undefined && !isNodeReady(k) });
          return { ok: r.done, detail: r.done ? undefined : `${r.remaining.length} pods still on the node` };
        });
        case 'delete the Node of': return api(() => c.kube().deleteNode(node.name));
        case 'kubeadm reset on':
          // the server may already be gone or down (a failed node): nothing left to reset then
          await onNode(c, node, step, (s) => kubeadmReset(s)).catch((e: Error) => deps.log.warn({ clusterId, serverId, err: e.message }, 'kubeadm reset skipped'));
          return { ok: true };
      }
    },

    /** A joined worker leaves its old control plane for a new one: reset, and its join step to be done again. */
    async resetForRejoin({ clusterId, serverId }: { clusterId: string; serverId: string }): Promise<void> {
      const c = await openCluster(deps, clusterId);
      const node = c.node(serverId);
      await onNode(c, node, 'kubeadm reset on', (s) => kubeadmReset(s));
      await setNodeJoinState(db, clusterId, serverId, { joinState: 'installing', doneSteps: node.doneSteps.filter((x) => x !== 'kubeadm join') });
    },
  };
  // The checks a workflow polls on timers tell it how long it may wait before the next one (waitUntil).
  const polled = <A>(check: (a: A) => Promise<WaitCheck>) => async (a: A): Promise<WaitCheck> => ({ ...(await check(a)), pollMaxMs: deps.cfg.cluster.pollMaxMs });
  return {
    ...activities,
    apiHealth: polled(activities.apiHealth),
    controlPlaneImages: polled(activities.controlPlaneImages),
    nodeReady: polled(activities.nodeReady),
    removeNodeStep: polled(activities.removeNodeStep),
  };
}
