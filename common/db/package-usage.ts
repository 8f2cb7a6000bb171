/** A package's usageState follows the VNF instances that use it. */
import { eq } from 'drizzle-orm';
import type { Db } from './index';
import { vnfInstances, vnfPackages } from './schema';

export function refreshPackageUsage(db: Db, packageId: string): void {
  const used = db.select({ id: vnfInstances.id }).from(vnfInstances).where(eq(vnfInstances.vnfPkgId, packageId)).get();
  db.update(vnfPackages).set({ usageState: used ? 'IN_USE' : 'NOT_IN_USE' }).where(eq(vnfPackages.id, packageId)).run();
}
