/**
 * A package's usageState follows the VNF instances that use it, and the
 * change_vnfpkg operations that move an instance onto it: the target of a
 * change is IN_USE from the moment the API accepts the op (same transaction)
 * until the op ends (COMPLETED: an instance uses it; ROLLED_BACK/FAILED:
 * released), so it cannot be deleted in the middle of a rolling update.
 *
 * The target is found the way the API and the workflow resolve it: the
 * onboarded package of the op's vnfdId in the instance's project (a project
 * cannot onboard a vnfdId twice, common/db/repos/packages.ts).
 */
import { and, eq, notInArray, sql } from 'drizzle-orm';
import type { Db } from './index';
import { vnfInstances, vnfLcmOpOccs, vnfPackages } from './schema';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
type DbOrTx = Db | Tx;
const ENDED = ['COMPLETED', 'FAILED', 'ROLLED_BACK'];

/** A change_vnfpkg op that has not ended and moves an instance of `projectId` to `vnfdId`. */
function changingTo(db: DbOrTx, projectId: string, vnfdId: string | null): boolean {
  if (!vnfdId) return false;
  return !!db.select({ id: vnfLcmOpOccs.id }).from(vnfLcmOpOccs).where(and(
    eq(vnfLcmOpOccs.operation, 'CHANGE_VNFPKG'),
    notInArray(vnfLcmOpOccs.operationState, ENDED),
    eq(vnfLcmOpOccs.projectId, projectId),
    sql`json_extract(${vnfLcmOpOccs.operationParams}, '$.vnfdId') = ${vnfdId}`,
  )).get();
}

export function refreshPackageUsage(db: DbOrTx, packageId: string): void {
  const pkg = db.select().from(vnfPackages).where(eq(vnfPackages.id, packageId)).get();
  if (!pkg) return;
  const used = db.select({ id: vnfInstances.id }).from(vnfInstances).where(eq(vnfInstances.vnfPkgId, packageId)).get()
    || (pkg.onboardingState === 'ONBOARDED' && changingTo(db, pkg.projectId, pkg.vnfdId));
  db.update(vnfPackages).set({ usageState: used ? 'IN_USE' : 'NOT_IN_USE' }).where(eq(vnfPackages.id, packageId)).run();
}

/**
 * In the transaction that records a change_vnfpkg op: the target must still be
 * onboarded and ENABLED (a PATCH or DELETE may have come in since the route
 * looked), and is IN_USE from now on. Returns why not, or undefined.
 */
export function holdChangeTarget(tx: Tx, packageId: string): string | undefined {
  const pkg = tx.select().from(vnfPackages).where(eq(vnfPackages.id, packageId)).get();
  if (!pkg || pkg.onboardingState !== 'ONBOARDED') return `VNF package ${packageId} is gone`;
  if (pkg.operationalState !== 'ENABLED') return `VNF package ${packageId} (vnfdId ${pkg.vnfdId}) is DISABLED`;
  tx.update(vnfPackages).set({ usageState: 'IN_USE' }).where(eq(vnfPackages.id, packageId)).run();
  return undefined;
}

/** After a change_vnfpkg op ended: its target is IN_USE only if an instance now uses it. */
export function releaseChangeTarget(db: Db, opOccId: string): void {
  db.transaction((tx) => {
    const op = tx.select().from(vnfLcmOpOccs).where(eq(vnfLcmOpOccs.id, opOccId)).get();
    const vnfdId = (op?.operationParams as { vnfdId?: unknown } | undefined)?.vnfdId;
    if (op?.operation !== 'CHANGE_VNFPKG' || typeof vnfdId !== 'string') return;
    const targets = tx.select({ id: vnfPackages.id }).from(vnfPackages)
      .where(and(eq(vnfPackages.projectId, op.projectId), eq(vnfPackages.vnfdId, vnfdId))).all();
    for (const t of targets) refreshPackageUsage(tx, t.id);
  }, { behavior: 'immediate' }); // read-then-write
}
