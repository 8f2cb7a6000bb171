/** VNF packages as a project sees them. */
import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '..';
import { vnfPackages } from '../schema';
import { owned, ownedAnd, type Scope } from './scope';

export type PackageRow = typeof vnfPackages.$inferSelect;

export function listPackages(db: Db, scope: Scope): PackageRow[] {
  return db.select().from(vnfPackages).where(owned(vnfPackages.projectId, scope)).all();
}

export function findPackage(db: Db, scope: Scope, id: string): PackageRow | undefined {
  return db.select().from(vnfPackages).where(ownedAnd(vnfPackages.projectId, scope, eq(vnfPackages.id, id))).get();
}

/**
 * The package a vnfdId names for this project: the onboarded one (a project
 * cannot onboard a vnfdId twice), preferring ENABLED. Another project's
 * package of the same vnfdId is never picked: nobody can shadow your VNFD.
 */
export function packageForVnfd(db: Db, scope: Scope, vnfdId: string): PackageRow | undefined {
  return db.select().from(vnfPackages)
    .where(and(eq(vnfPackages.vnfdId, vnfdId), eq(vnfPackages.onboardingState, 'ONBOARDED'), owned(vnfPackages.projectId, scope)))
    .orderBy(desc(eq(vnfPackages.operationalState, 'ENABLED')), desc(vnfPackages.createdAt)).get();
}
