/**
 * ChangeCurrentVnfPkg, rolling update (SOL003 v2, seed 004):
 *   change_current_package_start hook
 *   -> for each targeted VNFC, newest first (descending index across the VDUs),
 *      a child workflow (rollVnfc): update that VNFC alone to the new package,
 *      wait, then coordinate it (EM coordination API, or a coordinate script)
 *   -> full stack update with the new package -> instance info under the new vnfdId
 *   -> change_current_package_end hook.
 * Rollback walks the same VNFCs in the same order back to the old package,
 * coordinating with the old script / old_vnfc_param.
 */
import { executeChild, workflowInfo } from '@temporalio/workflow';
import type { LcmOpInput } from './definitions';
import { runOperation, Step } from './engine';
import { acts, db } from './activities';
import { hookStep } from './hooks';
import { rollVnfc, RollVnfcInput } from './roll-vnfc';
import { waitForStack } from './stack';

export async function changeVnfpkg(input: LcmOpInput) {
  const { opOccId, vnfInstanceId, heatPollMs } = input;
  const { hooks } = await db.describeOperation({ opOccId });
  const plan = await db.describeChangeVnfpkg({ opOccId });
  const n = plan.targets.length;
  let moved = 0; // targets [0, moved) are on the new package
  let coordinated = 0; // ... and [0, coordinated) coordinated
  let rolledBack = 0; // rollback: targets [0, rolledBack) are back on the old package
  let children = 0; // unique child ids across retries

  const child = (index: number, isRollback: boolean, newFrom: number, newTo: number) => {
    const t = plan.targets[index];
    const args: RollVnfcInput = {
      opOccId, vnfInstanceId, heatPollMs, oldPackageId: plan.oldPackageId, newPackageId: plan.newPackageId,
      newFrom, newTo, target: t, isRollback, label: `${t.heatResourceName} (${index + 1}/${n})`,
      coordination: plan.coordination[t.vnfcId][isRollback ? 'old' : 'new'],
    };
    return executeChild(rollVnfc, {
      args: [args],
      workflowId: `${workflowInfo().workflowId}/${isRollback ? 'rollback' : 'update'}-${t.heatResourceName}-${++children}`,
    });
  };
  const applyWhole = async (templateFrom: string, newTo: number) => {
    await acts.applyPackageMix({ opOccId, templateFrom, oldPackageId: plan.oldPackageId, newPackageId: plan.newPackageId, newFrom: 0, newTo });
    await waitForStack(vnfInstanceId, 'UPDATE', heatPollMs);
  };

  const steps: Step[] = [
    ...hookStep(opOccId, hooks, 'change_current_package_start'),
    {
      name: 'rolling update',
      interruptible: true,
      run: async () => {
        for (let i = coordinated; i < n; i++) { // a retry resumes at the VNFC that failed
          moved = Math.max(moved, i + 1);
          await child(i, false, 0, i + 1);
          coordinated = i + 1;
        }
      },
      compensate: async () => {
        for (let j = rolledBack; j < moved; j++) { // same order as the update
          await child(j, true, j + 1, moved);
          rolledBack = j + 1;
        }
      },
      abort: () => acts.abortStack({ vnfInstanceId }),
    },
    {
      name: 'update stack to the new package',
      run: async () => {
        await applyWhole(plan.newPackageId, n);
        await acts.switchInstancePackage({ opOccId, packageId: plan.newPackageId });
        await acts.recordVnfInfo({ opOccId });
      },
      compensate: async () => {
        await applyWhole(plan.oldPackageId, n);
        await acts.switchInstancePackage({ opOccId, packageId: plan.oldPackageId });
        await acts.recordVnfInfo({ opOccId });
      },
    },
    ...hookStep(opOccId, hooks, 'change_current_package_end'),
  ];
  return runOperation(input, steps);
}
