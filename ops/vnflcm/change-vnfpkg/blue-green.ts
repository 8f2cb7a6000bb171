/**
 * ChangeCurrentVnfPkg, BlueGreen (seed 004's second upgrade_type):
 *   change_current_package_start hook
 *   -> stack update: the new VNFCs, from the new package, beside the old ones
 *      (indices above theirs: VDU1-0, VDU1-1 stay, VDU1-2, VDU1-3 appear)
 *   -> coordinate each new VNFC (lcm-operation-coordinate-new-vnf / new_vnfc_param)
 *   -> switch: the instance is the new package's
 *   -> coordinate each old VNFC (lcm-operation-coordinate-old-vnf / old_vnfc_param)
 *   -> stack update with the new package's template: the old VNFCs are removed
 *   -> change_current_package_end hook.
 * Rollback removes the new VNFCs and switches back; the old ones are not
 * touched (same template, same values). Only a rollback after the removal
 * (the end hook failed) has to create old VNFCs again.
 */
import type { LcmHook } from '../../../model/vnfd';
import type { LcmOpInput } from '../../../engine/contracts';
import type { Step } from '../../../workflow-steps/step';
import { mergeLayouts, type VnfcLayout } from '../../../infra/hot/layout';
import { acts, activitiesOf, bookkeeping } from '../../../workflow-steps/activities';
import { hookStep } from '../../../workflow-steps/hooks';
import { sent, waitForStack } from '../../../workflow-steps/stack';
import type { ChangeVnfpkgActivities, ChangeVnfpkgPlan, CoordSide, RollingTarget } from './activities';
import { coordinateVnfc } from './roll-vnfc';

/** This operation's own activities (./activities.ts), with the shared proxies' options. */
const own = activitiesOf<ChangeVnfpkgActivities>();

export function blueGreenSteps(input: LcmOpInput, hooks: LcmHook[], plan: ChangeVnfpkgPlan): Step[] {
  const { opOccId, vnfInstanceId } = input;
  const { oldPackageId, newPackageId } = plan;
  const bg = plan.blueGreen!;
  const both = mergeLayouts(bg.others, bg.old, bg.new);

  /** The stack with exactly `layout`, the template from `templateFrom`, `bg.new` on the new package; then instantiatedVnfInfo. */
  const apply = async (templateFrom: string, layout: VnfcLayout, newVnfcs: VnfcLayout) => {
    const sentAt = await sent(() => own.acts.applyPackageMix({ opOccId, templateFrom, oldPackageId, newPackageId, newFrom: 0, newTo: 0, layout, newVnfcs }));
    await waitForStack(vnfInstanceId, 'UPDATE', input, sentAt);
    await acts.recordVnfInfo({ opOccId, accumulate: true });
  };
  const coordinate = async (side: CoordSide, vnfcs: RollingTarget[]) => {
    for (const [k, t] of vnfcs.entries()) {
      await bookkeeping().recordStep({ opOccId, step: `coordinate ${side} VNFC ${t.heatResourceName} (${k + 1}/${vnfcs.length})` });
      await coordinateVnfc(opOccId, t, false, bg.coordination[t.vduId][side], side === 'new' ? newPackageId : oldPackageId, side);
    }
  };
  const abort = () => acts.abortStack({ vnfInstanceId });

  return [
    ...hookStep(opOccId, hooks, 'change_current_package_start'),
    {
      name: 'create the new VNFCs beside the old ones',
      run: () => apply(oldPackageId, both, bg.new),
      compensate: () => apply(oldPackageId, mergeLayouts(bg.others, bg.old), {}),
      abort,
    },
    { name: 'coordinate the new VNFCs', interruptible: true, run: async () => coordinate('new', await own.db.vnfcsNamed({ opOccId, layout: bg.new })) },
    {
      name: 'switch to the new package',
      run: () => own.acts.switchInstancePackage({ opOccId, packageId: newPackageId }),
      compensate: () => own.acts.switchInstancePackage({ opOccId, packageId: oldPackageId }),
    },
    { name: 'coordinate the old VNFCs', interruptible: true, run: () => coordinate('old', plan.targets) },
    {
      name: 'remove the old VNFCs',
      run: () => apply(newPackageId, mergeLayouts(bg.others, bg.new), bg.new),
      compensate: () => apply(oldPackageId, both, bg.new),
      abort,
    },
    ...hookStep(opOccId, hooks, 'change_current_package_end'),
  ];
}
