/**
 * Heat calls for an instance's stack vnf-<instanceId>. Each is idempotent: a
 * retry after a crash finds the stack by name instead of creating a second one,
 * and the stack id is saved on the instance the moment it is known.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { and, eq, like } from 'drizzle-orm';
import { vnfInstances, vnfPackageFiles } from '../common/db/schema';
import { buildStack, vduCountsForLevel } from '../infra/hot';
import type { InstantiateInput } from '../infra/hot';
import { OpenStackHttpError } from '../infra/openstack/http';
import { heatForVim, stackNameFor } from '../infra/vim';
import type { ActivityDeps } from './deps';
import { loadInstance, loadOpOcc, loadVnfd, opParams } from './records';

export interface StackStatus { id: string; name: string; status: string; reason?: string }

export function stackActivities({ db, box, log }: ActivityDeps) {
  const heatOf = (inst: { id: string; vimId: string | null }) => {
    if (!inst.vimId) throw ApplicationFailure.nonRetryable(`VNF instance ${inst.id} has no VIM`, 'InvalidInput');
    return heatForVim(db, box, inst.vimId);
  };
  const saveStackId = (vnfInstanceId: string, stackId: string | null) =>
    db.update(vnfInstances).set({ stackId }).where(eq(vnfInstances.id, vnfInstanceId)).run();

  /** Heat's 4xx answers to our own requests will not get better on retry. */
  const nonRetryable4xx = (e: unknown) => {
    if (e instanceof OpenStackHttpError && e.status >= 400 && e.status < 500 && e.status !== 401 && e.status !== 409) {
      return ApplicationFailure.nonRetryable(e.message, 'VimRejected');
    }
    return e;
  };

  return {
    /** The instance's live stack (by saved id, else by name), or null. */
    async stackStatus({ vnfInstanceId }: { vnfInstanceId: string }): Promise<StackStatus | null> {
      const inst = loadInstance(db, vnfInstanceId);
      const heat = heatOf(inst);
      const name = stackNameFor(vnfInstanceId);
      let s = inst.stackId ? await heat.getStack(name, inst.stackId) : null;
      if (!s || s.stack_status === 'DELETE_COMPLETE') {
        const live = await heat.findStack(name);
        if (live) s = live;
      }
      if (!s) return null;
      if (s.id !== inst.stackId && s.stack_status !== 'DELETE_COMPLETE') saveStackId(vnfInstanceId, s.id);
      return { id: s.id, name, status: s.stack_status, reason: s.stack_status_reason };
    },

    async createStack({ opOccId }: { opOccId: string }): Promise<{ stackId: string }> {
      const op = loadOpOcc(db, opOccId);
      const inst = loadInstance(db, op.vnfInstanceId);
      const heat = heatOf(inst);
      const name = stackNameFor(inst.id);
      const existing = await heat.findStack(name);
      if (existing) {
        saveStackId(inst.id, existing.id);
        return { stackId: existing.id };
      }
      const input = opParams<InstantiateInput>(box, op);
      const vnfd = loadVnfd(db, inst.vnfPkgId);
      const flavour = vnfd.flavours[input.flavourId];
      if (!flavour) throw ApplicationFailure.nonRetryable(`flavour ${input.flavourId} not in VNFD ${vnfd.vnfdId}`, 'InvalidInput');
      const files = Object.fromEntries(
        db.select().from(vnfPackageFiles)
          .where(and(eq(vnfPackageFiles.packageId, inst.vnfPkgId), like(vnfPackageFiles.path, 'BaseHOT/%')))
          .all().map((f) => [f.path, f.content]),
      );
      let spec;
      try {
        spec = buildStack(vnfd, flavour, files, input, vduCountsForLevel(flavour, input.instantiationLevelId));
      } catch (e) {
        throw ApplicationFailure.nonRetryable(`cannot build the Heat template: ${(e as Error).message}`, 'InvalidInput');
      }
      try {
        const { id } = await heat.createStack(name, spec);
        saveStackId(inst.id, id);
        log.info({ vnfInstanceId: inst.id, stackId: id }, 'stack create requested');
        return { stackId: id };
      } catch (e) {
        if (e instanceof OpenStackHttpError && e.status === 409) {
          const live = await heat.findStack(name); // lost the race with an earlier attempt
          if (live) return saveStackId(inst.id, live.id), { stackId: live.id };
        }
        throw nonRetryable4xx(e);
      }
    },

    /** Starts deleting the instance's stack; false when there is none left. */
    async deleteStack({ vnfInstanceId }: { vnfInstanceId: string }): Promise<boolean> {
      const inst = loadInstance(db, vnfInstanceId);
      const heat = heatOf(inst);
      const name = stackNameFor(vnfInstanceId);
      const s = (inst.stackId ? await heat.getStack(name, inst.stackId) : null) ?? (await heat.findStack(name));
      if (!s || s.stack_status === 'DELETE_COMPLETE') return false;
      if (s.stack_status !== 'DELETE_IN_PROGRESS') await heat.deleteStack(name, s.id);
      return true;
    },

    /** FORCEFUL cancel: stop Heat's running create/update without rollback. */
    async abortStack({ vnfInstanceId }: { vnfInstanceId: string }): Promise<void> {
      const inst = loadInstance(db, vnfInstanceId);
      const heat = heatOf(inst);
      const name = stackNameFor(vnfInstanceId);
      const s = inst.stackId ? await heat.getStack(name, inst.stackId) : await heat.findStack(name);
      if (s && s.stack_status.endsWith('_IN_PROGRESS') && !s.stack_status.startsWith('DELETE')) {
        await heat.stackAction(name, s.id, 'cancel_without_rollback');
      }
    },
  };
}
