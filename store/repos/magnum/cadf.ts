/**
 * The CADF audit log: every notification. Its deliveries are in the
 * notification outbox (one row per sink); `deliveries` holds those of events
 * recorded before the outbox, delivered by deliverCadfNotification.
 */
import { and, desc, eq, lt } from 'drizzle-orm';
import type * as schema from '../../schema';
import type { Store } from '../../store';
import type { Q, SqlStore } from '../../sql-store';
import { first } from '../rows';

export type CadfRow = typeof schema.cadfEvents.$inferSelect;
export type CadfInsert = typeof schema.cadfEvents.$inferInsert;

/** Inside the caller's transaction: records the event once (its id is derived from the operation and the status it reports). */
export async function insertCadfEventIn({ db, t }: Q, row: CadfInsert): Promise<void> {
  await db.insert(t.cadfEvents).values(row).onConflictDoNothing();
}

export function cadfEventById(store: SqlStore, id: string): Promise<CadfRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.cadfEvents).where(eq(t.cadfEvents.id, id)).limit(1)));
}

/** Newest first; `before` is the created_at of the last event of the previous page. */
export function listCadfEvents(store: Store, o: { clusterId?: string; before?: string; limit: number }): Promise<CadfRow[]> {
  return store.read(({ db, t }) => {
    const where = and(o.clusterId ? eq(t.cadfEvents.clusterId, o.clusterId) : undefined, o.before ? lt(t.cadfEvents.createdAt, o.before) : undefined);
    return db.select().from(t.cadfEvents).where(where).orderBy(desc(t.cadfEvents.createdAt), desc(t.cadfEvents.id)).limit(o.limit);
  });
}

/** One sink's delivery outcome (read-modify-write in a transaction: sinks are delivered in parallel). */
export function recordCadfDelivery(store: Store, id: string, sink: string, d: { url: string; delivered: boolean; lastError?: string }): Promise<void> {
  return store.tx(async ({ db, t }) => {
    const [row] = await db.select().from(t.cadfEvents).where(eq(t.cadfEvents.id, id)).limit(1);
    if (!row) return;
    const was = row.deliveries[sink];
    const deliveries = { ...row.deliveries, [sink]: { url: d.url, delivered: d.delivered, attempts: (was?.attempts ?? 0) + 1, lastError: d.lastError, at: new Date().toISOString() } };
    await db.update(t.cadfEvents).set({ deliveries }).where(eq(t.cadfEvents.id, id));
  });
}
