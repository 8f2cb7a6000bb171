/**
 * A package's usageState follows the VNF instances that use it, and the
 * operations that move an instance onto it (change_vnfpkg, a modify naming a
 * vnfdId): the target of a change is IN_USE from the moment the API accepts the op (same transaction)
 * until the op ends (COMPLETED: an instance uses it; ROLLED_BACK/FAILED:
 * released), so it cannot be deleted in the middle of a rolling update.
 *
 * The target is found the way the API and the workflow resolve it: the
 * onboarded package of the op's vnfdId in the instance's project (a project
 * cannot onboard a vnfdId twice, store/repos/packages.ts).
 */
import { and, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { Store } from './store';
import type { Q } from './sql-store';

import { FINAL_STATES } from '../model/lcm-operation';

const ENDED = [...FINAL_STATES];
/** The operations that move an instance onto the package of their request's vnfdId (change_vnfpkg; a modify naming a vnfdId). */
const MOVING_OPERATIONS = ['CHANGE_VNFPKG', 'MODIFY_INFO'] as const;

/** An op moving an instance of `projectId` to `vnfdId` that has not ended. */
async function changingTo({ db, t, dialect }: Q, projectId: string, vnfdId: string | null): Promise<boolean> {
  if (!vnfdId) return false;
  const params = t.vnfLcmOpOccs.operationParams;
  const targetVnfd = dialect === 'postgres' ? sql`${params}->>'vnfdId'` : sql`json_extract(${params}, '$.vnfdId')`;
  const rows = await db.select({ id: t.vnfLcmOpOccs.id }).from(t.vnfLcmOpOccs).where(and(
    inArray(t.vnfLcmOpOccs.operation, [...MOVING_OPERATIONS]),
    notInArray(t.vnfLcmOpOccs.operationState, ENDED),
    eq(t.vnfLcmOpOccs.projectId, projectId),
    sql`${targetVnfd} = ${vnfdId}`,
  )).limit(1);
  return rows.length > 0;
}

export async function refreshPackageUsage(q: Q, packageId: string): Promise<void> {
  const { db, t } = q;
  const [pkg] = await db.select().from(t.vnfPackages).where(eq(t.vnfPackages.id, packageId)).limit(1);
  if (!pkg) return;
  const used = (await db.select({ id: t.vnfInstances.id }).from(t.vnfInstances).where(eq(t.vnfInstances.vnfPkgId, packageId)).limit(1)).length > 0
    || (pkg.onboardingState === 'ONBOARDED' && await changingTo(q, pkg.projectId, pkg.vnfdId));
  const usageState = used ? 'IN_USE' : 'NOT_IN_USE';
  // Written only when it changes: every create in a package would otherwise rewrite its row, and on PostgreSQL concurrent creates conflict there.
  if (pkg.usageState !== usageState) await db.update(t.vnfPackages).set({ usageState }).where(eq(t.vnfPackages.id, packageId));
}

/**
 * In the transaction that records a change_vnfpkg op: the target must still be
 * onboarded and ENABLED (a PATCH or DELETE may have come in since the route
 * looked), and is IN_USE from now on. Returns why not, or undefined.
 */
export async function holdChangeTarget({ db, t }: Q, packageId: string): Promise<string | undefined> {
  const [pkg] = await db.select().from(t.vnfPackages).where(eq(t.vnfPackages.id, packageId)).limit(1);
  if (!pkg || pkg.onboardingState !== 'ONBOARDED') return `VNF package ${packageId} is gone`;
  if (pkg.operationalState !== 'ENABLED') return `VNF package ${packageId} (vnfdId ${pkg.vnfdId}) is DISABLED`;
  await db.update(t.vnfPackages).set({ usageState: 'IN_USE' }).where(eq(t.vnfPackages.id, packageId));
  return undefined;
}

/** After an op moving an instance to another package ended: its target is IN_USE only if an instance now uses it. */
export function releaseChangeTarget(store: Store, opOccId: string): Promise<void> {
  return store.tx(async (q) => {
    const { db, t } = q;
    const [op] = await db.select().from(t.vnfLcmOpOccs).where(eq(t.vnfLcmOpOccs.id, opOccId)).limit(1);
    const vnfdId = (op?.operationParams as { vnfdId?: unknown } | undefined)?.vnfdId;
    if (!op || !(MOVING_OPERATIONS as readonly string[]).includes(op.operation) || typeof vnfdId !== 'string') return;
    const targets = await db.select({ id: t.vnfPackages.id }).from(t.vnfPackages)
      .where(and(eq(t.vnfPackages.projectId, op.projectId), eq(t.vnfPackages.vnfdId, vnfdId)));
    for (const p of targets) await refreshPackageUsage(q, p.id);
  });
}

/** Recomputes one package's usage state on its own (after an instance moved off it, say). */
export function refreshUsage(store: Store, packageId: string): Promise<void> {
  return store.tx((q) => refreshPackageUsage(q, packageId));
}
