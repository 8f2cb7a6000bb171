/**
 * ChangeCurrentVnfPkg, rolling update (SOL003 v2, seed 004; BlueGreen in blue-green.ts):
 *   change_current_package_start hook
 *   -> for each targeted VNFC, newest first (descending index across the VDUs),
 *      a child workflow (rollVnfc, grouped in rollingChunk children): update
 *      that VNFC alone to the new package, wait, then coordinate it (EM
 *      coordination API, or a coordinate script)
 *   -> full stack update with the new package -> instance info under the new vnfdId
 *   -> change_current_package_end hook.
 * Rollback walks the same VNFCs in the same order back to the old package,
 * coordinating with the old script / old_vnfc_param. The children record how
 * far they got, so retry and rollback pick up exactly there.
 */
import { CancellationScope, executeChild, workflowInfo } from '@temporalio/workflow';
import type { ChangeVnfpkgActivities, ChangeVnfpkgPlan } from './activities';
import type { LcmHook } from '../../../model/vnfd';
import type { LcmOpInput } from '../../../engine/contracts';
import { runOperation } from '../../../engine/etsi-op-occ';
import type { Step } from '../../../workflow-steps/step';
import { activitiesOf, acts, db, planReads } from '../../../workflow-steps/activities';
import { blueGreenSteps } from './blue-green';
import { hookStep } from '../../../workflow-steps/hooks';
import type { RollVnfcInput } from './roll-vnfc';
import { CHUNK, rollingChunk } from './rolling-chunk';
import { sent, waitForStack } from '../../../workflow-steps/stack';

/** This operation's own activities (./activities.ts), with the shared proxies' options. */
const own = activitiesOf<ChangeVnfpkgActivities>();

export async function changeVnfpkg(input: LcmOpInput) {
  // Planned inside the engine: its cancel/retry/rollback/fail handlers exist before the first await,
  // and a plan that cannot be made (e.g. a coordinate script missing from the package) is FAILED_TEMP.
  return runOperation(input, async () => {
    const { hooks } = await planReads().describeOperation({ opOccId: input.opOccId });
    const plan = await own.db.describeChangeVnfpkg({ opOccId: input.opOccId });
    return plan.blueGreen ? blueGreenSteps(input, hooks, plan) : rollingSteps(input, hooks, plan);
  });
}

function rollingSteps(input: LcmOpInput, hooks: LcmHook[], plan: ChangeVnfpkgPlan): Step[] {
  const { opOccId, vnfInstanceId, heatPollMs, heatPollMaxMs } = input;
  const n = plan.targets.length;
  let progress = { moved: 0, coordinated: 0, rolledBack: 0 };
  let runs = 0; // unique chunk ids across retries

  const vnfc = (index: number, isRollback: boolean): RollVnfcInput => {
    const t = plan.targets[index];
    return {
      opOccId, vnfInstanceId, heatPollMs, heatPollMaxMs, oldPackageId: plan.oldPackageId, newPackageId: plan.newPackageId,
      // update: targets [0, index] are on the new package; rollback: only those after it that had moved
      newFrom: isRollback ? index + 1 : 0, newTo: isRollback ? progress.moved : index + 1,
      target: t, index, isRollback, label: `${t.heatResourceName} (${index + 1}/${n})`,
      coordination: plan.coordination[t.vnfcId][isRollback ? 'old' : 'new'],
    };
  };
  /** Runs VNFCs [from, to) in chunks; the recorded progress is re-read whatever happened. */
  const roll = async (from: number, to: number, isRollback: boolean) => {
    for (let start = from; start < to; start += CHUNK) {
      const vnfcs = Array.from({ length: Math.min(CHUNK, to - start) }, (_, k) => vnfc(start + k, isRollback));
      try {
        await executeChild(rollingChunk, { args: [{ vnfcs }], workflowId: `${workflowInfo().workflowId}/${isRollback ? 'rollback' : 'update'}-${start}-${++runs}` });
      } finally {
        progress = await CancellationScope.nonCancellable(() => db.rollingProgress({ opOccId }));
      }
    }
  };
  const applyWhole = async (templateFrom: string) => {
    const sentAt = await sent(() => own.acts.applyPackageMix({ opOccId, templateFrom, oldPackageId: plan.oldPackageId, newPackageId: plan.newPackageId, newFrom: 0, newTo: n }));
    await waitForStack(vnfInstanceId, 'UPDATE', input, sentAt);
  };

  const steps: Step[] = [
    ...hookStep(opOccId, hooks, 'change_current_package_start'),
    {
      name: 'rolling update',
      interruptible: true,
      run: () => roll(progress.coordinated, n, false), // a retry resumes at the VNFC that failed
      compensate: () => roll(progress.rolledBack, progress.moved, true), // same order as the update
      abort: () => acts.abortStack({ vnfInstanceId }),
    },
    {
      name: 'update stack to the new package',
      run: async () => {
        await applyWhole(plan.newPackageId);
        await own.acts.switchInstancePackage({ opOccId, packageId: plan.newPackageId });
        await acts.recordVnfInfo({ opOccId });
      },
      compensate: async () => {
        await applyWhole(plan.oldPackageId);
        await own.acts.switchInstancePackage({ opOccId, packageId: plan.oldPackageId });
        await acts.recordVnfInfo({ opOccId });
      },
    },
    ...hookStep(opOccId, hooks, 'change_current_package_end'),
  ];
  return steps;
}
