/** Instance records written at the end of instantiate/terminate (and their rollback). */
import crypto from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { eq } from 'drizzle-orm';
import { vnfInstances, vnfLcmOpOccs } from '../common/db/schema';
import { redact } from '../common/secrets';
import type { InstantiateInput } from '../infra/hot';
import { buildInstantiatedVnfInfo } from '../infra/vnf-info';
import { heatForVim, stackNameFor } from '../infra/vim';
import type { ActivityDeps } from './deps';
import { loadInstance, loadOpOcc, loadVnfd, opParams } from './records';

export function instanceActivities({ db, box }: ActivityDeps) {
  return {
    /** Reads the stack's resources and records instantiatedVnfInfo; instance -> INSTANTIATED. */
    async recordInstantiated({ opOccId }: { opOccId: string }): Promise<void> {
      const op = loadOpOcc(db, opOccId);
      const inst = loadInstance(db, op.vnfInstanceId);
      if (!inst.stackId || !inst.vimId) throw ApplicationFailure.nonRetryable(`instance ${inst.id} has no stack`, 'StackFailed');
      const input = opParams<InstantiateInput>(box, op);
      const flavour = loadVnfd(db, inst.vnfPkgId).flavours[input.flavourId];
      const resources = await heatForVim(db, box, inst.vimId).listResources(stackNameFor(inst.id), inst.stackId, 3);
      const levelId = input.instantiationLevelId ?? flavour.instantiationLevels.defaultLevel;
      const scaleInfo = (levelId && flavour.instantiationLevels.levels[levelId]?.scaleInfo) || {};
      const info = buildInstantiatedVnfInfo({
        flavour, input, vimConnectionId: inst.vimId, resources, newId: () => crypto.randomUUID(),
        scaleStatus: Object.keys(flavour.scalingAspects).map((aspectId) => ({ aspectId, scaleLevel: scaleInfo[aspectId] ?? 0 })),
      });
      const shown = redact({ ...info, additionalParams: input.additionalParams ?? {} });
      const affectedVnfcs = info.vnfcResourceInfo.map((v) => ({ id: v.id, vduId: v.vduId, changeType: 'ADDED', computeResource: v.computeResource }));
      db.transaction((tx) => {
        tx.update(vnfInstances).set({ instantiationState: 'INSTANTIATED', instantiatedVnfInfo: shown as Record<string, unknown> })
          .where(eq(vnfInstances.id, inst.id)).run();
        tx.update(vnfLcmOpOccs).set({ resourceChanges: { affectedVnfcs } }).where(eq(vnfLcmOpOccs.id, opOccId)).run();
      });
    },

    /** Instance back to NOT_INSTANTIATED with no stack (terminate, instantiate rollback). */
    async recordNotInstantiated({ opOccId }: { opOccId: string }): Promise<void> {
      const op = loadOpOcc(db, opOccId);
      const inst = loadInstance(db, op.vnfInstanceId);
      const removed = ((inst.instantiatedVnfInfo as { vnfcResourceInfo?: { id: string; vduId: string; computeResource: unknown }[] } | null)?.vnfcResourceInfo ?? [])
        .map((v) => ({ id: v.id, vduId: v.vduId, changeType: 'REMOVED', computeResource: v.computeResource }));
      db.transaction((tx) => {
        tx.update(vnfInstances).set({ instantiationState: 'NOT_INSTANTIATED', instantiatedVnfInfo: null, stackId: null })
          .where(eq(vnfInstances.id, inst.id)).run();
        if (op.operation === 'TERMINATE') {
          tx.update(vnfLcmOpOccs).set({ resourceChanges: { affectedVnfcs: removed } }).where(eq(vnfLcmOpOccs.id, opOccId)).run();
        }
      });
    },
  };
}
