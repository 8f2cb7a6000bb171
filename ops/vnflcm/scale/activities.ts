/** The scale workflow's plan, computed from the instance as it is when the op starts. */
import { ApplicationFailure } from '@temporalio/activity';
import { planScale, ScalePlan, ScaleRequest } from '../../../infra/scale-plan';
import type { ActivityDeps } from '../../../activities/deps';
import { flavourOf, loadOpOcc, opParams } from '../../../activities/records';
import { instantiatedInfoOf } from '../../../common/db/repos/instances';

export function scaleActivities({ db, box }: ActivityDeps) {
  return {
    async planScale({ opOccId }: { opOccId: string }): Promise<ScalePlan> {
      const op = await loadOpOcc(db, opOccId);
      const { inst, flavour } = await flavourOf(db, box, op);
      try {
        return planScale(flavour, instantiatedInfoOf(inst), opParams<ScaleRequest>(box, op));
      } catch (e) {
        throw ApplicationFailure.nonRetryable((e as Error).message, 'InvalidInput');
      }
    },
  };
}

export type ScaleActivities = ReturnType<typeof scaleActivities>;
