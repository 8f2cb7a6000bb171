/**
 * The VNF instance's stack vnf-<instanceId>, through the stack driver
 * (infra/stack-driver.ts: idempotent create, update, delete, abort). The
 * stack id is saved on the instance the moment it is known.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { setStackId } from '../store/repos/instances';
import { buildStack, currentLayout, layoutOf, resizeLayout, vduCountsForLevel, type StackSpec, type VnfcLayout } from '../infra/hot';
import { OpenStackHttpError } from '../infra/openstack/http';
import { nonRetryable4xx, StackDriver, type StackRef, type StackStatus } from '../infra/stack-driver';
import { stackNameFor } from '../infra/vim';
import type { ActivityDeps } from './deps';
import { opContext, type OpContext } from './op-context';
import { loadInstance, type Connectivity } from './records';

export type { StackStatus };

export interface StackTarget {
  /** VNFC counts per VDU: the instance's VNFCs keep their indices, added ones go above (infra/hot/layout.ts). */
  counts?: Record<string, number>;
  /** Exactly these VNFCs (BlueGreen change_vnfpkg). */
  layout?: VnfcLayout;
  /** Another package's stack for the same instance (change_vnfpkg). */
  packageId?: string;
  connectivity?: Connectivity;
}

/**
 * The stack for the instance with the given VNFCs (default: what it has now,
 * or the level at instantiate), from its package or another one.
 */
export async function stackSpecFor({ cfg }: ActivityDeps, ctx: OpContext, { counts, layout, packageId, connectivity }: StackTarget = {}): Promise<StackSpec> {
  const inst = await ctx.instance();
  const current = await ctx.flavour();
  const vnfd = await ctx.vnfd(packageId);
  const flavour = packageId ? vnfd.flavours[current?.flavourId ?? ''] : current;
  if (!flavour) throw ApplicationFailure.nonRetryable(`instance ${inst.id}: flavour not in the VNFD ${vnfd.vnfdId}`, 'InvalidInput');
  const input = await ctx.instantiateInput(connectivity);
  const now = () => currentLayout(inst.instantiatedVnfInfo, Object.keys(flavour.vdus));
  const target = layout
    ?? (counts ? resizeLayout(now(), counts) : ctx.op.operation === 'INSTANTIATE' ? layoutOf(vduCountsForLevel(flavour, input.instantiationLevelId)) : now());
  const files = await ctx.baseHotFiles(packageId);
  try {
    // the policy again: HEAT_RESOURCE_TYPES may have changed since the API's precheck
    return buildStack(vnfd, flavour, files, input, target, cfg.heatResourceTypes);
  } catch (e) {
    throw ApplicationFailure.nonRetryable(`cannot build the Heat template: ${(e as Error).message}`, 'InvalidInput');
  }
}

export function stackActivities(deps: ActivityDeps) {
  const { db, box, log } = deps;
  const driver = StackDriver.forStore(db, box);
  /** The instance's stack: vnf-<instanceId> on its VIM, by its saved id when there is one. */
  const refOf = (inst: { id: string; vimId: string | null; stackId?: string | null }): StackRef => {
    if (!inst.vimId) throw ApplicationFailure.nonRetryable(`VNF instance ${inst.id} has no VIM`, 'InvalidInput');
    return { vimId: inst.vimId, name: stackNameFor(inst.id), id: inst.stackId };
  };
  const saveStackId = (vnfInstanceId: string, stackId: string | null) => setStackId(db, vnfInstanceId, stackId);
  /** "name/id" of a nested stack, as recorded in instantiatedVnfInfo, on the instance's VIM. */
  const nestedRef = (vimId: string, nameAndId: string) => {
    const [name, id] = nameAndId.split('/');
    return { vimId, name, id };
  };

  return {
    /** byId: the stack of the saved id only (before a create, whose 409 finds a stack of the name left unsaved). */
    async stackStatus({ vnfInstanceId, byId }: { vnfInstanceId: string; byId?: boolean }): Promise<StackStatus | null> {
      const inst = await loadInstance(db, vnfInstanceId);
      const s = await driver.status(refOf(inst), { byId });
      if (!s) return null;
      if (s.id !== inst.stackId && s.status !== 'DELETE_COMPLETE') await saveStackId(vnfInstanceId, s.id);
      return s;
    },

    async createStack({ opOccId }: { opOccId: string }): Promise<{ stackId: string }> {
      const ctx = await opContext(deps, opOccId);
      const inst = await ctx.instance();
      const { id, created } = await driver.create(refOf(inst), () => stackSpecFor(deps, ctx));
      await saveStackId(inst.id, id);
      if (created) log.info({ vnfInstanceId: inst.id, stackId: id }, 'stack create requested');
      return { stackId: id };
    },

    /**
     * Starts a stack update: with counts or a connectivity, the full template
     * for them (scale; change_ext_conn and its rollback); without, Heat
     * re-converges the current one (heal replaces what was marked unhealthy).
     * An update already running is not started twice.
     */
    async updateStack({ opOccId, counts, connectivity }: { opOccId: string; counts?: Record<string, number>; connectivity?: Connectivity }): Promise<void> {
      const ctx = await opContext(deps, opOccId);
      await driver.update(refOf(await ctx.instance()), async () => (counts || connectivity ? stackSpecFor(deps, ctx, { counts, connectivity }) : {}));
    },

    /** Marks the servers (and volumes) of the VNFCs to heal unhealthy in their nested stacks. */
    async markUnhealthy({ opOccId }: { opOccId: string }): Promise<void> {
      const ctx = await opContext(deps, opOccId);
      const [inst, flavour] = [await ctx.instance(), await ctx.flavour()];
      const req = ctx.params<{ vnfcInstanceId?: string | string[]; cause?: string }>();
      const ids = ([] as string[]).concat(req.vnfcInstanceId ?? []);
      const info = inst.instantiatedVnfInfo;
      const { vimId } = refOf(inst);
      for (const id of ids) {
        const vnfc = info?.vnfcResourceInfo.find((v) => v.id === id) ?? info?.vnfcResourceInfo.find((v) => info.vnfcInfo.some((c) => c.id === id && c.vnfcResourceInfoId === v.id));
        if (!vnfc?.metadata.stackId) throw ApplicationFailure.nonRetryable(`VNFC ${id} is not part of instance ${inst.id}`, 'InvalidInput');
        const reason = req.cause ?? `heal of VNFC ${id} requested`;
        for (const resource of [vnfc.vduId, ...(flavour.vdus[vnfc.vduId]?.storageIds ?? [])]) {
          try {
            await driver.markUnhealthy(nestedRef(vimId, vnfc.metadata.stackId), resource, reason);
          } catch (e) {
            if (!(e instanceof OpenStackHttpError && e.status === 404 && resource !== vnfc.vduId)) throw nonRetryable4xx(e);
          }
        }
      }
    },

    /**
     * Drives a stack that Heat failed when its engine went down on to the end
     * of that operation (StackDriver.redrive). Returns what to wait for.
     */
    async redriveStack({ vnfInstanceId }: { vnfInstanceId: string }): Promise<'UPDATE' | 'DELETE'> {
      const inst = await loadInstance(db, vnfInstanceId);
      const { waitFor, was } = await driver.redrive(refOf(inst));
      if (waitFor === 'UPDATE') log.info({ vnfInstanceId, stackId: inst.stackId, was }, 'stack driven on after Heat restart');
      return waitFor;
    },

    /**
     * Before a scale-in: marks the AutoScalingGroup members of the VNFCs the
     * plan removes unhealthy. A group removes failed members first, so Heat
     * then removes exactly these, whatever its own (creation time) order.
     * VNFCs with a resource of their own ("VDU1-2") need nothing: the new
     * template simply has no such resource.
     */
    async markMembersForRemoval({ opOccId, vnfcIds }: { opOccId: string; vnfcIds: string[] }): Promise<void> {
      const inst = await (await opContext(deps, opOccId)).instance();
      const info = inst.instantiatedVnfInfo;
      const { vimId } = refOf(inst);
      for (const vnfc of info?.vnfcResourceInfo.filter((v) => vnfcIds.includes(v.id) && v.metadata.groupStackId) ?? []) {
        try {
          await driver.markUnhealthy(nestedRef(vimId, vnfc.metadata.groupStackId!), vnfc.metadata.heatResourceName, `scale in removes VNFC ${vnfc.id}`);
        } catch (e) {
          throw nonRetryable4xx(e);
        }
      }
    },

    /** Starts deleting the instance's stack; false when there is none left. */
    async deleteStack({ vnfInstanceId }: { vnfInstanceId: string }): Promise<boolean> {
      return driver.delete(refOf(await loadInstance(db, vnfInstanceId)));
    },

    /** FORCEFUL cancel: stop Heat's running create/update without rollback. */
    async abortStack({ vnfInstanceId }: { vnfInstanceId: string }): Promise<void> {
      await driver.abort(refOf(await loadInstance(db, vnfInstanceId)));
    },
  };
}
