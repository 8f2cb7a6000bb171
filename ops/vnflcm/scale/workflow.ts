/**
 * ScaleVnf (SOL003 5.4.5): scale_start hook -> [scale-in: mark the
 * AutoScalingGroup members to remove unhealthy] -> stack update with the new
 * VNFC counts -> wait UPDATE_COMPLETE -> rebuild instantiatedVnfInfo
 * (scaleStatus) -> scale_end hook on the added VNFCs. Scale-in removes the
 * newest VNFCs (highest index) first, or a group's oldest members. Rollback
 * puts the old counts back.
 */
import { patched } from '@temporalio/workflow';
import type { ScalePlan } from '../../../infra/scale-plan';
import type { LcmHook } from '../../../model/vnfd';
import type { LcmOpInput } from '../../../engine/contracts';
import { runOperation } from '../../../engine/etsi-op-occ';
import type { Step } from '../../../workflow-steps/step';
import { activitiesOf, acts, planReads } from '../../../workflow-steps/activities';
import { hookStep } from '../../../workflow-steps/hooks';
import { sent, waitForStack } from '../../../workflow-steps/stack';
import type { ScaleActivities } from './activities';

/** This operation's own activities (./activities.ts), with the shared proxies' options. */
const own = activitiesOf<ScaleActivities>();

export async function scale(input: LcmOpInput) {
  // Planned inside the engine: the operator's handlers exist before the first await.
  return runOperation(input, async () => {
    const { hooks } = await planReads().describeOperation({ opOccId: input.opOccId });
    return scaleSteps(input, hooks, await own.db.planScale({ opOccId: input.opOccId }));
  });
}

function scaleSteps(input: LcmOpInput, hooks: LcmHook[], plan: ScalePlan): Step[] {
  const { opOccId, vnfInstanceId } = input;
  let added: string[] = [];
  const updateTo = async (counts: Record<string, number>, scaleStatus: typeof plan.before.scaleStatus) => {
    await waitForStack(vnfInstanceId, 'UPDATE', input, await sent(() => acts.updateStack({ opOccId, counts })));
    return acts.recordVnfInfo({ opOccId, scaleStatus });
  };
  const steps: Step[] = [
    ...hookStep(opOccId, hooks, 'scale_start', () => plan.removedVnfcIds),
    {
      name: `update stack (${Object.entries(plan.after.counts).map(([v, n]) => `${v}=${n}`).join(', ')})`,
      run: async () => {
        if (plan.removedVnfcIds.length && patched('mark-group-members-before-scale-in')) {
          await acts.markMembersForRemoval({ opOccId, vnfcIds: plan.removedVnfcIds });
        }
        added = (await updateTo(plan.after.counts, plan.after.scaleStatus)).added;
      },
      abort: () => acts.abortStack({ vnfInstanceId }),
      compensate: async () => { await updateTo(plan.before.counts, plan.before.scaleStatus); },
    },
    ...hookStep(opOccId, hooks, 'scale_end', () => added),
  ];
  return steps;
}
