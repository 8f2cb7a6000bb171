/**
 * The Magnum cluster's stack magnum-<cluster id> through the stack driver
 * (idempotent create, update, delete on a stack reference), its template
 * made from the store's nodegroups and members (heat-template.ts). The
 * stack id is saved on the cluster the moment it is known.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { utils as sshUtils } from 'ssh2';
import type { ActivityDeps } from '../../../../lcm-activities/deps';
import type { ClusterSecrets } from '../../../../model/cluster';
import { clusterById } from '../../../../store/repos/clusters';
import { nodegroupsOf, updateMagnumCluster, updateNodegroup, type MagnumClusterRow } from '../../../../store/repos/magnum/clusters';
import { LookupAmbiguous, LookupNotFound } from '../../../../infra/openstack/cloud-lookups';
import type { StackTemplate } from '../../../../infra/openstack/heat';
import { StackDriver, type StackStatus } from '../../../../infra/stack-driver';
import { clusterStack, serverNameOf, type StackMember } from '../heat-template';
import { loadMagnum, stackRefOf } from './cluster';
import { vimLookups } from './vim-lookups';

export function stackActivities(deps: ActivityDeps) {
  const { db, box, log } = deps;
  const driver = StackDriver.forStore(db, box);

  /** The template for the cluster as the store has it now. */
  const templateOf = async (row: MagnumClusterRow): Promise<StackTemplate> => {
    const engine = await clusterById(db, row.id);
    if (!engine) throw ApplicationFailure.nonRetryable(`cluster ${row.id} has no engine record yet`, 'NodeStepFailed');
    const secrets = box.openJson<ClusterSecrets>(engine.secretsSealed);
    const parsed = sshUtils.parseKey(secrets.logins.master.privateKey ?? '');
    if (parsed instanceof Error) throw ApplicationFailure.nonRetryable(`cluster ${row.id}: its SSH key cannot be read`, 'NodeStepFailed');
    const clusterKey = `${parsed.type} ${parsed.getPublicSSH().toString('base64')} magnum-${row.id}`;
    const r = row.attrs.resolved;
    const lookups = await vimLookups(deps, r.vimId);
    const resolve = async (kind: 'image' | 'flavor', ident: string) => {
      try {
        return kind === 'image' ? (await lookups.image(ident)).id : (await lookups.flavor(ident)).id;
      } catch (e) {
        if (e instanceof LookupNotFound || e instanceof LookupAmbiguous) throw ApplicationFailure.nonRetryable(`${kind} ${ident}: ${e.message}`, 'InvalidInput');
        throw e;
      }
    };
    const members: StackMember[] = [];
    for (const g of await nodegroupsOf(db, row.id)) {
      const master = g.role === 'master';
      const imageId = g.isDefault || g.imageId === r.imageId ? r.imageId : await resolve('image', g.imageId);
      const defaultFlavor = master ? r.masterFlavorId : r.flavorId;
      const flavorId = g.isDefault || !g.flavorId ? defaultFlavor : await resolve('flavor', g.flavorId);
      for (const index of g.members) members.push({ nodegroup: g.name, index, serverName: serverNameOf(row.name, row.id, g.name, index), imageId, flavorId, master });
    }
    return clusterStack({
      clusterId: row.id, clusterName: row.name, networkId: r.networkId, subnetId: r.subnetId,
      authorizedKeys: [clusterKey, ...(r.keypairPublicKey ? [r.keypairPublicKey.trim()] : [])], members,
      apiLbSubnetId: r.apiLbSubnetId,
    });
  };

  return {
    async magnumStackStatus({ clusterId }: { clusterId: string }): Promise<StackStatus | null> {
      const row = await loadMagnum(deps, clusterId);
      const s = await driver.status(stackRefOf(row));
      if (s && s.id !== row.stackId && s.status !== 'DELETE_COMPLETE') await updateMagnumCluster(db, clusterId, { stackId: s.id });
      return s;
    },

    /** Creates the stack unless it exists, with Heat's own timeout at the cluster's create_timeout. */
    async createMagnumStack({ clusterId }: { clusterId: string }): Promise<void> {
      const row = await loadMagnum(deps, clusterId);
      const { id, created } = await driver.create(stackRefOf(row), () => templateOf(row), row.attrs.create_timeout);
      await updateMagnumCluster(db, clusterId, { stackId: id });
      if (created) log.info({ clusterId, stackId: id }, 'Magnum cluster stack create requested');
    },

    /** The stack to the store's nodegroups and members (PUT: exactly this template). */
    async updateMagnumStack({ clusterId }: { clusterId: string }): Promise<void> {
      const row = await loadMagnum(deps, clusterId);
      await driver.update(stackRefOf(row), () => templateOf(row), 'PUT');
    },

    /** Heat failed what its engine was doing when it went down: drive it on (StackDriver.redrive). */
    async redriveMagnumStack({ clusterId }: { clusterId: string }): Promise<'UPDATE' | 'DELETE'> {
      return (await driver.redrive(stackRefOf(await loadMagnum(deps, clusterId)))).waitFor;
    },

    /** Starts deleting the stack (again, after a DELETE_FAILED); false when there is none. */
    async deleteMagnumStack({ clusterId }: { clusterId: string }): Promise<boolean> {
      const row = await loadMagnum(deps, clusterId);
      return driver.delete(stackRefOf(row));
    },

    /** The resources a failed delete left, for the reason ("default-worker-1 (server 1f2e...): DELETE_FAILED ..."). */
    async stuckMagnumResources({ clusterId }: { clusterId: string }): Promise<string[]> {
      const row = await loadMagnum(deps, clusterId);
      const ref = stackRefOf(row);
      const s = await driver.find(ref);
      if (!s) return [];
      const left = (await driver.resources({ ...ref, id: s.id }, 0)).filter((r) => r.resource_status !== 'DELETE_COMPLETE');
      return left.map((r) => `${r.resource_name} (${r.physical_resource_id || 'no id'}): ${r.resource_status}${r.resource_status_reason ? ` ${r.resource_status_reason.slice(0, 200)}` : ''}`);
    },

    /** A nodegroup's members (what the stack holds of it) and its node_count. */
    async setNodegroupMembers({ nodegroupId, members }: { nodegroupId: number; members: number[] }): Promise<void> {
      await updateNodegroup(db, nodegroupId, { members: [...members].sort((a, b) => a - b), nodeCount: members.length });
    },
  };
}
