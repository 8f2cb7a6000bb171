/**
 * A Magnum cluster on the cluster engine: its engine row (PKI, a per-cluster
 * SSH key pair whose private half is sealed with the cluster's secrets, the
 * settings from the template's labels), made once by the create's first
 * step; and its nodes, synced from the stack's servers (nodegroup and role
 * from the resource "<nodegroup>-<index>"); the API endpoint is the API
 * load balancer's VIP (master_lb_enabled) or else the first master.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from '../../../../lcm-activities/deps';
import { apiServerUrl, nodeRefOf, openCluster } from '../../../../cluster/activities/access';
import type { ClusterSecrets } from '../../../../model/cluster';
import { settingsFromLabels } from '../settings';
import { newClusterPki, sealPki } from '../../../../cluster/pki';
import { clusterById, createCluster, syncClusterNodes, updateCluster } from '../../../../store/repos/clusters';
import { magnumClusterById, nodegroupsOf, updateMagnumCluster, updateNodegroup, type MagnumClusterRow } from '../../../../store/repos/magnum/clusters';
import { templateById } from '../../../../store/repos/magnum/templates';
import { newEd25519KeyPair } from '@nfv-orchestrator/lib/ssh-keys';
import type { HeatStack } from '../../../../infra/openstack/heat';
import { StackDriver } from '../../../../infra/stack-driver';
import type { ClusterNodesOut } from '../contracts';
import { magnumStackName } from '../contracts';
import { API_ADDRESS_OUTPUT, API_LB_PORT } from '../heat-template';
import { vimLookups } from './vim-lookups';

/** A stack output's value, when a non-empty string. */
const outputOf = (stack: HeatStack, key: string) => {
  const v = stack.outputs?.find((o) => o.output_key === key)?.output_value;
  return typeof v === 'string' && v ? v : undefined;
};

export const loadMagnum = async (deps: Pick<ActivityDeps, 'db'>, clusterId: string): Promise<MagnumClusterRow> => {
  const row = await magnumClusterById(deps.db, clusterId);
  if (!row) throw ApplicationFailure.nonRetryable(`Magnum cluster ${clusterId} not found`, 'NodeStepFailed');
  return row;
};

/** The stack of a Magnum cluster on its VIM. */
export const stackRefOf = (row: MagnumClusterRow) => ({ vimId: row.attrs.resolved.vimId, name: magnumStackName(row.id), id: row.stackId });

export function clusterActivities(deps: ActivityDeps) {
  const { db, box, cfg } = deps;
  const driver = StackDriver.forStore(db, box);
  return {
    /** The engine's row with the cluster's PKI and SSH key pair, once (a retry finds it). */
    async prepareMagnumCluster({ clusterId }: { clusterId: string }): Promise<void> {
      if (await clusterById(db, clusterId)) return;
      const row = await loadMagnum(deps, clusterId);
      const template = await templateById(db, row.templateId);
      const proxies = template?.proxiesSealed ? box.openJson<{ http_proxy?: string; https_proxy?: string }>(template.proxiesSealed) : undefined;
      const keys = newEd25519KeyPair(`magnum-${clusterId}`);
      const login = { username: 'ubuntu', privateKey: keys.private };
      const secrets: ClusterSecrets = { logins: { master: login, worker: login }, registries: {}, proxy: proxies };
      const pki = sealPki(box, await newClusterPki({ clusterName: row.name }));
      await createCluster(db, {
        id: clusterId, projectId: row.projectId, kind: 'magnum', name: row.name, vimId: row.attrs.resolved.vimId,
        settings: settingsFromLabels(row.attrs.labels, template?.attrs.no_proxy, cfg.cluster.nodeMonitorGracePeriod),
        secretsSealed: box.sealJson(secrets), createdAt: new Date().toISOString(),
      }, { certs: pki.certs, keysSealed: pki.sealedKeys });
    },

    /** The stack's servers as the cluster's nodes (new ones pending, gone ones removed); the first master is the endpoint. */
    async syncMagnumNodes({ clusterId }: { clusterId: string }): Promise<ClusterNodesOut> {
      const row = await loadMagnum(deps, clusterId);
      const groups = await nodegroupsOf(db, clusterId);
      const ref = stackRefOf(row);
      const stack = await driver.find(ref);
      if (!stack) throw ApplicationFailure.nonRetryable(`the stack ${ref.name} of cluster ${row.name} does not exist`, 'StackFailed');
      const lookups = await vimLookups(deps, ref.vimId);
      const nodes = [];
      for (const res of await driver.resources({ ...ref, id: stack.id }, 0)) {
        if (res.resource_type !== 'OS::Nova::Server' || !res.physical_resource_id) continue;
        const m = /^(.+)-(\d+)$/.exec(res.resource_name);
        const group = m && groups.find((g) => g.name === m[1]);
        if (!group) continue;
        const server = await lookups.server(res.physical_resource_id);
        const address = server && Object.values(server.addresses).flat().find((a) => !a.version || a.version === 4)?.addr;
        if (!server || !address) throw ApplicationFailure.retryable(`server ${res.physical_resource_id} (${res.resource_name}) has no address yet`, 'NodeStepTransient');
        nodes.push({
          serverId: server.id, name: server.name, address, role: group.role === 'master' ? 'master' as const : 'worker' as const,
          nodegroup: group.name, hostKeyId: server.id, index: Number(m![2]),
        });
      }
      const masters = nodes.filter((n) => n.role === 'master').sort((a, b) => a.index - b.index);
      // the API load balancer's VIP when the stack has one, else the first master's API
      const apiLb = row.attrs.resolved.apiLbSubnetId ? outputOf(stack, API_ADDRESS_OUTPUT) : undefined;
      if (row.attrs.resolved.apiLbSubnetId && !apiLb) throw ApplicationFailure.retryable(`the API load balancer of stack ${ref.name} has no VIP yet`, 'NodeStepTransient');
      const endpoint = apiLb ? `${apiLb}:${API_LB_PORT}` : masters[0]?.address;
      const engine = await clusterById(db, clusterId);
      if (endpoint && engine && engine.endpoint !== endpoint) await updateCluster(db, clusterId, { endpoint, apiAddress: apiServerUrl(endpoint) });
      const synced = await syncClusterNodes(db, clusterId, nodes.map(({ index: _i, ...n }) => n));
      return { clusterId, nodes: synced.map(nodeRefOf), ...(apiLb ? { apiLb } : {}) };
    },

    /** What the workflow needs of its operation beyond ids: the create deadline, the operation's parameters. */
    async describeMagnumOperation({ clusterId }: { clusterId: string }): Promise<{ name: string; createTimeoutMin: number; deleteRetryPauseMs: number; opParams: Record<string, unknown> }> {
      const row = await loadMagnum(deps, clusterId);
      return { name: row.name, createTimeoutMin: row.attrs.create_timeout || 60, deleteRetryPauseMs: cfg.magnum.deleteRetryPauseMs, opParams: row.opParams };
    },

    /** An upgrade's end: the cluster (or one nodegroup) on the template, and on its Kubernetes version (kube_tag, coe_version). */
    async applyMagnumUpgrade({ clusterId }: { clusterId: string }): Promise<void> {
      const row = await loadMagnum(deps, clusterId);
      const p = row.opParams as { templateId: string; nodegroupId?: number; version?: string };
      if (p.nodegroupId === undefined) {
        const template = await templateById(db, p.templateId);
        const kubeTag = template?.attrs.labels.kube_tag;
        await updateMagnumCluster(db, clusterId, { templateId: p.templateId, ...(kubeTag !== undefined ? { attrs: { ...row.attrs, labels: { ...row.attrs.labels, kube_tag: kubeTag } } } : {}) });
        const engine = await clusterById(db, clusterId);
        const version = p.version?.replace(/^v/, '');
        if (engine && version && engine.settings.kubeVersion !== version) await updateCluster(db, clusterId, { settings: { ...engine.settings, kubeVersion: version } });
      }
      for (const g of await nodegroupsOf(db, clusterId)) {
        if (p.nodegroupId === undefined || g.id === p.nodegroupId) await updateNodegroup(db, g.id, { version: p.version ?? g.version });
      }
    },

    /** Magnum's node labels (role and nodegroup), the nodegroup's node_labels, and its taints on workers. */
    async labelMagnumNodes({ clusterId }: { clusterId: string }): Promise<void> {
      const c = await openCluster(deps, clusterId);
      const groups = await nodegroupsOf(db, clusterId);
      const kube = c.kube();
      for (const n of c.nodes.filter((x) => x.joinState === 'joined')) {
        const g = groups.find((x) => x.name === n.nodegroup);
        if (!g) continue;
        await kube.labelNode(n.name, { 'magnum.openstack.org/role': g.role, 'magnum.openstack.org/nodegroup': g.name, ...g.nodeLabels });
        if (g.role !== 'master') await kube.patchNode(n.name, { spec: { taints: g.nodeTaints.map((t) => ({ key: t.key, value: t.value, effect: t.effect })) } }, 'merge');
      }
    },
  };
}
