/** The scale workflow's plan, computed from the instance as it is when the op starts. */
import { ApplicationFailure } from '@temporalio/activity';
import { planScale, ScalePlan, ScaleRequest } from '../../../infra/scale-plan';
import type { InstantiatedVnfInfo } from '../../../infra/vnf-info';
import type { ActivityDeps } from '../../../activities/deps';
import { flavourOf, loadOpOcc, opParams } from '../../../activities/records';

export function scaleActivities({ db, box }: ActivityDeps) {
  return {
    async planScale({ opOccId }: { opOccId: string }): Promise<ScalePlan> {
      const op = await loadOpOcc(db, opOccId);
      const { inst, flavour } = await flavourOf(db, box, op);
      try {
        return planScale(flavour, inst.instantiatedVnfInfo as unknown as InstantiatedVnfInfo, opParams<ScaleRequest>(box, op));
      } catch (e) {
        throw ApplicationFailure.nonRetryable((e as Error).message, 'InvalidInput');
      }
    },
  };
}
