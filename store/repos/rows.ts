/** Row types, and the one-row read both dialects share (no .get() on PostgreSQL). */
import type * as schema from '../schema';

export type VimRow = typeof schema.vims.$inferSelect;
export type PackageRow = typeof schema.vnfPackages.$inferSelect;
export type InstanceRow = typeof schema.vnfInstances.$inferSelect;
export type OpOccRow = typeof schema.vnfLcmOpOccs.$inferSelect;
export type InstanceInsert = typeof schema.vnfInstances.$inferInsert;
export type OpOccInsert = typeof schema.vnfLcmOpOccs.$inferInsert;
export type VimInsert = typeof schema.vims.$inferInsert;

/** The first row of a query's answer (callers add .limit(1)). */
export async function first<T>(rows: Promise<T[]>): Promise<T | undefined> {
  return (await rows)[0];
}
