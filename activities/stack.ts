/**
 * Heat calls for an instance's stack vnf-<instanceId>. Each is idempotent: a
 * retry after a crash finds the stack by name instead of creating a second one,
 * and the stack id is saved on the instance the moment it is known.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { setStackId } from '../common/db/repos/instances';
import { baseHotFiles } from '../common/db/repos/package-files';
import { buildStack, vduCountsForLevel, StackSpec } from '../infra/hot';
import type { InstantiatedVnfInfo } from '../infra/vnf-info';
import { OpenStackHttpError } from '../infra/openstack/http';
import { heatForVim, stackNameFor } from '../infra/vim';
import type { ActivityDeps } from './deps';
import { flavourOf, instantiateInputOf, loadInstance, loadOpOcc, loadVnfd, opParams } from './records';

export interface StackStatus { id: string; name: string; status: string; reason?: string }

/**
 * The stack for the instance with the given VNFC counts per VDU (default: what
 * it has now, or the level at instantiate), from its package or another one
 * (change_vnfpkg builds the target package's stack for the same instance).
 */
export async function stackSpecFor(deps: ActivityDeps, opOccId: string, counts?: Record<string, number>, packageId?: string): Promise<StackSpec> {
  const { db, box } = deps;
  const op = await loadOpOcc(db, opOccId);
  const { inst, flavour: current } = await flavourOf(db, box, op);
  const vnfd = await loadVnfd(db, packageId ?? inst.vnfPkgId);
  const flavour = packageId ? vnfd.flavours[current?.flavourId ?? ''] : current;
  if (!flavour) throw ApplicationFailure.nonRetryable(`instance ${inst.id}: flavour not in the VNFD ${vnfd.vnfdId}`, 'InvalidInput');
  const input = instantiateInputOf(box, op, inst);
  const target = counts
    ?? (op.operation === 'INSTANTIATE' ? vduCountsForLevel(flavour, input.instantiationLevelId) : currentCounts(inst.instantiatedVnfInfo as InstantiatedVnfInfo | null, Object.keys(flavour.vdus)));
  const files = await baseHotFiles(db, packageId ?? inst.vnfPkgId);
  try {
    return buildStack(vnfd, flavour, files, input, target);
  } catch (e) {
    throw ApplicationFailure.nonRetryable(`cannot build the Heat template: ${(e as Error).message}`, 'InvalidInput');
  }
}

export function currentCounts(info: InstantiatedVnfInfo | null, vduIds: string[]): Record<string, number> {
  const counts = Object.fromEntries(vduIds.map((v) => [v, 0]));
  for (const v of info?.vnfcResourceInfo ?? []) counts[v.vduId] = (counts[v.vduId] ?? 0) + 1;
  return counts;
}

export function stackActivities(deps: ActivityDeps) {
  const { db, box, log } = deps;
  const heatOf = async (inst: { id: string; vimId: string | null }) => {
    if (!inst.vimId) throw ApplicationFailure.nonRetryable(`VNF instance ${inst.id} has no VIM`, 'InvalidInput');
    return heatForVim(db, box, inst.vimId);
  };
  const saveStackId = (vnfInstanceId: string, stackId: string | null) => setStackId(db, vnfInstanceId, stackId);

  /** Heat's 4xx answers to our own requests will not get better on retry. */
  const nonRetryable4xx = (e: unknown) => {
    if (e instanceof OpenStackHttpError && e.status >= 400 && e.status < 500 && e.status !== 401 && e.status !== 409) {
      return ApplicationFailure.nonRetryable(e.message, 'VimRejected');
    }
    return e;
  };

  /** The instance's live stack: by saved id, else by name. */
  const liveStack = async (inst: { id: string; vimId: string | null; stackId: string | null }) => {
    const heat = await heatOf(inst);
    const name = stackNameFor(inst.id);
    let s = inst.stackId ? await heat.getStack(name, inst.stackId) : null;
    if (!s || s.stack_status === 'DELETE_COMPLETE') s = (await heat.findStack(name)) ?? s;
    return { heat, name, s };
  };

  return {
    async stackStatus({ vnfInstanceId }: { vnfInstanceId: string }): Promise<StackStatus | null> {
      const inst = await loadInstance(db, vnfInstanceId);
      const { name, s } = await liveStack(inst);
      if (!s) return null;
      if (s.id !== inst.stackId && s.stack_status !== 'DELETE_COMPLETE') await saveStackId(vnfInstanceId, s.id);
      return { id: s.id, name, status: s.stack_status, reason: s.stack_status_reason };
    },

    async createStack({ opOccId }: { opOccId: string }): Promise<{ stackId: string }> {
      const inst = await loadInstance(db, (await loadOpOcc(db, opOccId)).vnfInstanceId);
      const heat = await heatOf(inst);
      const name = stackNameFor(inst.id);
      const existing = await heat.findStack(name);
      if (existing) {
        await saveStackId(inst.id, existing.id);
        return { stackId: existing.id };
      }
      const spec = await stackSpecFor(deps, opOccId);
      try {
        const { id } = await heat.createStack(name, spec);
        await saveStackId(inst.id, id);
        log.info({ vnfInstanceId: inst.id, stackId: id }, 'stack create requested');
        return { stackId: id };
      } catch (e) {
        if (e instanceof OpenStackHttpError && e.status === 409) {
          const live = await heat.findStack(name); // lost the race with an earlier attempt
          if (live) {
            await saveStackId(inst.id, live.id);
            return { stackId: live.id };
          }
        }
        throw nonRetryable4xx(e);
      }
    },

    /**
     * Starts a stack update: with counts, the full template for them (scale);
     * without, Heat re-converges the current one (heal replaces what was
     * marked unhealthy). An update already running is not started twice.
     */
    async updateStack({ opOccId, counts }: { opOccId: string; counts?: Record<string, number> }): Promise<void> {
      const inst = await loadInstance(db, (await loadOpOcc(db, opOccId)).vnfInstanceId);
      const { heat, name, s } = await liveStack(inst);
      if (!s || s.stack_status === 'DELETE_COMPLETE') throw ApplicationFailure.nonRetryable(`VNF instance ${inst.id} has no stack`, 'StackFailed');
      if (s.stack_status.endsWith('_IN_PROGRESS')) return;
      try {
        await heat.updateStack(name, s.id, counts ? await stackSpecFor(deps, opOccId, counts) : {}, 'PATCH');
      } catch (e) {
        throw nonRetryable4xx(e);
      }
    },

    /** Marks the servers (and volumes) of the VNFCs to heal unhealthy in their nested stacks. */
    async markUnhealthy({ opOccId }: { opOccId: string }): Promise<void> {
      const op = await loadOpOcc(db, opOccId);
      const { inst, flavour } = await flavourOf(db, box, op);
      const req = opParams<{ vnfcInstanceId?: string | string[]; cause?: string }>(box, op);
      const ids = ([] as string[]).concat(req.vnfcInstanceId ?? []);
      const info = inst.instantiatedVnfInfo as InstantiatedVnfInfo | null;
      const heat = await heatOf(inst);
      for (const id of ids) {
        const vnfc = info?.vnfcResourceInfo.find((v) => v.id === id) ?? info?.vnfcResourceInfo.find((v) => info.vnfcInfo.some((c) => c.id === id && c.vnfcResourceInfoId === v.id));
        if (!vnfc?.metadata.stackId) throw ApplicationFailure.nonRetryable(`VNFC ${id} is not part of instance ${inst.id}`, 'InvalidInput');
        const [stackName, stackId] = vnfc.metadata.stackId.split('/');
        const reason = req.cause ?? `heal of VNFC ${id} requested`;
        for (const resource of [vnfc.vduId, ...(flavour.vdus[vnfc.vduId]?.storageIds ?? [])]) {
          try {
            await heat.markUnhealthy(stackName, stackId, resource, reason);
          } catch (e) {
            if (!(e instanceof OpenStackHttpError && e.status === 404 && resource !== vnfc.vduId)) throw nonRetryable4xx(e);
          }
        }
      }
    },

    /**
     * Drives a stack that Heat failed when its engine went down on to the end
     * of that operation: a failed delete is deleted again, a failed create or
     * update is updated to its own template. Returns what to wait for.
     */
    async redriveStack({ vnfInstanceId }: { vnfInstanceId: string }): Promise<'UPDATE' | 'DELETE'> {
      const { heat, name, s } = await liveStack(await loadInstance(db, vnfInstanceId));
      if (!s || s.stack_status.startsWith('DELETE')) {
        if (s?.stack_status === 'DELETE_FAILED') await heat.deleteStack(name, s.id);
        return 'DELETE';
      }
      if (s.stack_status.endsWith('_FAILED')) {
        try {
          await heat.updateStack(name, s.id, {}, 'PATCH');
        } catch (e) {
          throw nonRetryable4xx(e);
        }
      }
      log.info({ vnfInstanceId, stackId: s.id, was: s.stack_status }, 'stack driven on after Heat restart');
      return 'UPDATE';
    },

    /**
     * Before a scale-in: marks the AutoScalingGroup members of the VNFCs the
     * plan removes unhealthy. A group removes failed members first, so Heat
     * then removes exactly these, whatever its own (creation time) order.
     * VNFCs with a resource of their own ("VDU1-2") need nothing: the new
     * template simply has no such resource.
     */
    async markMembersForRemoval({ opOccId, vnfcIds }: { opOccId: string; vnfcIds: string[] }): Promise<void> {
      const { inst } = await flavourOf(db, box, await loadOpOcc(db, opOccId));
      const info = inst.instantiatedVnfInfo as InstantiatedVnfInfo | null;
      const heat = await heatOf(inst);
      for (const vnfc of info?.vnfcResourceInfo.filter((v) => vnfcIds.includes(v.id) && v.metadata.groupStackId) ?? []) {
        const [stackName, stackId] = vnfc.metadata.groupStackId!.split('/');
        try {
          await heat.markUnhealthy(stackName, stackId, vnfc.metadata.heatResourceName, `scale in removes VNFC ${vnfc.id}`);
        } catch (e) {
          throw nonRetryable4xx(e);
        }
      }
    },

    /** Starts deleting the instance's stack; false when there is none left. */
    async deleteStack({ vnfInstanceId }: { vnfInstanceId: string }): Promise<boolean> {
      const { heat, name, s } = await liveStack(await loadInstance(db, vnfInstanceId));
      if (!s || s.stack_status === 'DELETE_COMPLETE') return false;
      if (s.stack_status !== 'DELETE_IN_PROGRESS') await heat.deleteStack(name, s.id);
      return true;
    },

    /** FORCEFUL cancel: stop Heat's running create/update without rollback. */
    async abortStack({ vnfInstanceId }: { vnfInstanceId: string }): Promise<void> {
      const { heat, name, s } = await liveStack(await loadInstance(db, vnfInstanceId));
      if (s && s.stack_status.endsWith('_IN_PROGRESS') && !s.stack_status.startsWith('DELETE')) {
        await heat.stackAction(name, s.id, 'cancel_without_rollback');
      }
    },
  };
}
