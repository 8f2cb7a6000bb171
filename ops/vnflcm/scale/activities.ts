/** The scale workflow's plan, computed from the instance as it is when the op starts. */
import { ApplicationFailure } from '@temporalio/activity';
import { planScale, ScalePlan, ScaleRequest } from '../../../infra/scale-plan';
import type { ActivityDeps } from '../../../lcm-activities/deps';
import { opContext } from '../../../lcm-activities/op-context';
import { instantiatedInfoOf } from '../../../store/repos/instances';

export function scaleActivities(deps: ActivityDeps) {
  return {
    async planScale({ opOccId }: { opOccId: string }): Promise<ScalePlan> {
      const ctx = await opContext(deps, opOccId);
      const [inst, flavour] = [await ctx.instance(), await ctx.flavour()];
      try {
        return planScale(flavour, instantiatedInfoOf(inst), ctx.params<ScaleRequest>());
      } catch (e) {
        throw ApplicationFailure.nonRetryable((e as Error).message, 'InvalidInput');
      }
    },
  };
}

export type ScaleActivities = ReturnType<typeof scaleActivities>;
