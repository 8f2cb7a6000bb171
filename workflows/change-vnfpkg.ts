/**
 * ChangeCurrentVnfPkg, rolling update (SOL003 v2, seed 004):
 *   change_current_package_start hook
 *   -> for each targeted VNFC, newest first (descending index across the VDUs):
 *        update that VNFC alone to the new package -> wait UPDATE_COMPLETE
 *        -> coordinate it (EM coordination API, or a coordinate script)
 *   -> full stack update with the new package -> instance info under the new vnfdId
 *   -> change_current_package_end hook.
 * Rollback walks the same VNFCs in the same order back to the old package,
 * coordinating with the old script / old_vnfc_param.
 * Coordination waits (Retry-After, 202 polling) are workflow timers: a worker
 * holds nothing while parked and a crash resumes the same coordination.
 */
import { ApplicationFailure, CancellationScope, proxyActivities, sleep } from '@temporalio/workflow';
import type { LcmActivities } from '../activities';
import type { CoordMode, RollingTarget } from '../activities/change-vnfpkg';
import type { LcmOpInput } from './definitions';
import { runOperation, Step } from './engine';
import { acts, db } from './activities';
import { hookStep } from './hooks';
import { waitForStack } from './stack';

/** A coordinate script may run long; it is killed at its own timeout. */
const scriptActs = proxyActivities<LcmActivities>({ startToCloseTimeout: '25h', heartbeatTimeout: '1m', retry: { maximumAttempts: 1 } });

export async function changeVnfpkg(input: LcmOpInput) {
  const { opOccId, vnfInstanceId, heatPollMs } = input;
  const { hooks } = await db.describeOperation({ opOccId });
  const plan = await db.describeChangeVnfpkg({ opOccId });
  const onNew: string[] = []; // heat resource names already moved to the new package
  const coordinated = new Set<string>();

  const applyMix = async (templateFrom: string) => {
    await acts.applyPackageMix({ opOccId, templateFrom, oldPackageId: plan.oldPackageId, newPackageId: plan.newPackageId, newOn: [...onNew] });
    await waitForStack(vnfInstanceId, 'UPDATE', heatPollMs);
  };
  const show = (step: string) => db.recordStep({ opOccId, step });
  const coordinate = (t: RollingTarget, isRollback: boolean) =>
    coordinateVnfc(opOccId, t, isRollback, plan.coordination[t.vnfcId][isRollback ? 'old' : 'new'], isRollback ? plan.oldPackageId : plan.newPackageId);

  const steps: Step[] = [
    ...hookStep(opOccId, hooks, 'change_current_package_start'),
    {
      name: 'rolling update',
      interruptible: true,
      run: async () => {
        for (const [i, t] of plan.targets.entries()) {
          if (coordinated.has(t.vnfcId)) continue; // retry resumes after the last VNFC done
          const label = `${t.heatResourceName} (${i + 1}/${plan.targets.length})`;
          await show(`update ${label} to the new package`);
          if (!onNew.includes(t.heatResourceName)) onNew.push(t.heatResourceName);
          await applyMix(plan.oldPackageId);
          await show(`coordinate ${label}`);
          await coordinate(t, false);
          coordinated.add(t.vnfcId);
        }
      },
      compensate: async () => {
        for (const [i, t] of plan.targets.entries()) {
          if (!onNew.includes(t.heatResourceName)) continue;
          const label = `${t.heatResourceName} (${i + 1}/${plan.targets.length})`;
          await show(`roll back ${label} to the old package`);
          onNew.splice(onNew.indexOf(t.heatResourceName), 1);
          coordinated.delete(t.vnfcId);
          await applyMix(plan.oldPackageId);
          await show(`coordinate ${label} (rollback)`);
          await coordinate(t, true);
        }
      },
      abort: () => acts.abortStack({ vnfInstanceId }),
    },
    {
      name: 'update stack to the new package',
      run: async () => {
        await applyMix(plan.newPackageId);
        await acts.switchInstancePackage({ opOccId, packageId: plan.newPackageId });
        await acts.recordVnfInfo({ opOccId });
      },
      compensate: async () => {
        await applyMix(plan.oldPackageId);
        await acts.switchInstancePackage({ opOccId, packageId: plan.oldPackageId });
        await acts.recordVnfInfo({ opOccId });
      },
    },
    ...hookStep(opOccId, hooks, 'change_current_package_end'),
  ];
  return runOperation(input, steps);
}

/**
 * One VNFC's coordination. The built-in action follows SOL002: 201 -> result;
 * 503 -> the same POST after Retry-After; 202 -> GET the Location after
 * Retry-After until decided. CONTINUE goes on; ABORT/CANCELLED, the timeout
 * or an operator cancel stop it (a pending coordination is cancelled on the EM).
 */
async function coordinateVnfc(opOccId: string, t: RollingTarget, isRollback: boolean, mode: CoordMode, packageId: string): Promise<void> {
  if (mode.kind === 'none') return;
  const args = { opOccId, vnfcId: t.vnfcId, isRollback };
  if (mode.kind === 'script') {
    await scriptActs.runCoordinateScript({ ...args, packageId, timeoutMs: mode.timeoutMs });
    return;
  }
  const deadline = Date.now() + mode.timeoutMs;
  let location: string | undefined;
  let decided = false;
  try {
    for (;;) {
      const o = location ? await acts.coordGet({ ...args, location }) : await acts.coordPost(args);
      if (o.kind === 'result') {
        decided = true;
        if (o.coord.coordinationResult === 'CONTINUE') return;
        const why = o.coord.error ? `: ${JSON.stringify(o.coord.error)}` : '';
        throw ApplicationFailure.nonRetryable(`coordination ${o.coord.id} of VNFC ${t.vnfcId} ended ${o.coord.coordinationResult}${why}`, 'CoordinationRefused');
      }
      if (o.kind === 'async') location = o.location;
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      await sleep(Math.min(o.retryAfterMs, remaining));
      if (Date.now() >= deadline) break;
    }
    throw ApplicationFailure.nonRetryable(`coordination of VNFC ${t.vnfcId} did not finish within ${mode.timeoutMs / 1000} s`, 'CoordinationTimeout');
  } finally {
    if (location && !decided) {
      const where = location;
      await CancellationScope.nonCancellable(() => acts.coordCancel({ ...args, location: where }));
    }
  }
}
