/** VNF instances and their op occs as a project sees them. */
import { eq } from 'drizzle-orm';
import type { Db } from '..';
import { vnfInstances, vnfLcmOpOccs } from '../schema';
import { owned, ownedAnd, type Scope } from './scope';

export type InstanceRow = typeof vnfInstances.$inferSelect;
export type OpOccRow = typeof vnfLcmOpOccs.$inferSelect;

export function listInstances(db: Db, scope: Scope): InstanceRow[] {
  return db.select().from(vnfInstances).where(owned(vnfInstances.projectId, scope)).all();
}

export function findInstance(db: Db, scope: Scope, id: string): InstanceRow | undefined {
  return db.select().from(vnfInstances).where(ownedAnd(vnfInstances.projectId, scope, eq(vnfInstances.id, id))).get();
}

export function listOpOccs(db: Db, scope: Scope): OpOccRow[] {
  return db.select().from(vnfLcmOpOccs).where(owned(vnfLcmOpOccs.projectId, scope)).all();
}

export function findOpOcc(db: Db, scope: Scope, id: string): OpOccRow | undefined {
  return db.select().from(vnfLcmOpOccs).where(ownedAnd(vnfLcmOpOccs.projectId, scope, eq(vnfLcmOpOccs.id, id))).get();
}
