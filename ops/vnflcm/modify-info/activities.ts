/** ModifyVnfInfo's one write: the instance's information and the op occ's changedInfo together. */
import { ApplicationFailure } from '@temporalio/activity';
import { packageForVnfd } from '../../../store/repos/packages';
import { updateInstanceAndOpOcc } from '../../../store/repos/op-occs';
import type { ActivityDeps } from '../../../lcm-activities/deps';
import { opContext } from '../../../lcm-activities/op-context';
import { applyModification } from './apply';
import type { VnfInfoModificationRequest } from './request';

export function modifyInfoActivities({ db, box }: ActivityDeps) {
  return {
    /** Idempotent: the same merge patches over the result give the same result. */
    async modifyInstanceInfo({ opOccId }: { opOccId: string }): Promise<void> {
      const ctx = await opContext({ db, box }, opOccId);
      const inst = await ctx.instance();
      const req = ctx.params<VnfInfoModificationRequest>();
      // looked up even when the instance has it already (a re-run after a crash), so changedInfo comes out the same
      const target = req.vnfdId !== undefined ? await packageForVnfd(db, { projectId: inst.projectId, all: false }, req.vnfdId) : undefined;
      if (req.vnfdId !== undefined && !target) {
        throw ApplicationFailure.nonRetryable(`no onboarded VNF package of the instance's project has vnfdId ${req.vnfdId}`, 'InvalidInput');
      }
      const { instance, changedInfo } = applyModification(inst, req, target);
      await updateInstanceAndOpOcc(db, {
        instanceId: inst.id, instance, opOccId, opOcc: { changedInfo },
        packagesInvolved: target ? [inst.vnfPkgId, target.id] : [],
      });
    },
  };
}

export type ModifyInfoActivities = ReturnType<typeof modifyInfoActivities>;
