/**
 * The notification outbox (schema-notify.ts): rows are queued inside the
 * transaction of the change they report, then drained one ordering key at a
 * time, in seq order, by that key's delivery workflow (notify/workflow.ts).
 */
import { and, asc, desc, eq, inArray, max, sql } from 'drizzle-orm';
import type * as schema from '../schema';
import type { Store } from '../store';
import type { Q } from '../sql-store';
import { first } from './rows';

export type OutboxRow = typeof schema.notificationOutbox.$inferSelect;
export type NewNotification = Omit<typeof schema.notificationOutbox.$inferInsert, 'seq' | 'state' | 'attempts' | 'dispatched' | 'createdAt'>;

/** Inside the caller's transaction: each row gets the next seq of its key (serialized transactions keep seqs in commit order). */
export async function queueIn({ db, t }: Q, rows: NewNotification[]): Promise<OutboxRow[]> {
  const out: OutboxRow[] = [];
  const now = new Date().toISOString();
  for (const r of rows) {
    const [{ last }] = await db.select({ last: max(t.notificationOutbox.seq) }).from(t.notificationOutbox).where(eq(t.notificationOutbox.orderingKey, r.orderingKey));
    const [row] = await db.insert(t.notificationOutbox).values({ ...r, seq: (last ?? 0) + 1, state: 'PENDING', attempts: 0, dispatched: false, createdAt: now }).returning();
    out.push(row);
  }
  return out;
}

export function queueNotifications(store: Store, rows: NewNotification[]): Promise<OutboxRow[]> {
  return store.tx((q) => queueIn(q, rows));
}

export function notificationById(store: Store, id: string): Promise<OutboxRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.notificationOutbox).where(eq(t.notificationOutbox.id, id)).limit(1)));
}

/** The key's next notification to deliver: its lowest PENDING seq. */
export function nextPendingOf(store: Store, orderingKey: string): Promise<OutboxRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.notificationOutbox)
    .where(and(eq(t.notificationOutbox.orderingKey, orderingKey), eq(t.notificationOutbox.state, 'PENDING')))
    .orderBy(asc(t.notificationOutbox.seq)).limit(1)));
}

/** Rows queued but whose delivery workflow was not signalled yet (a crash between the commit and the signal); `sourceIds` narrows. */
export function undispatched(store: Store, o: { sourceIds?: string[]; limit?: number } = {}): Promise<Pick<OutboxRow, 'id' | 'orderingKey'>[]> {
  return store.read(({ db, t }) => db.select({ id: t.notificationOutbox.id, orderingKey: t.notificationOutbox.orderingKey }).from(t.notificationOutbox)
    .where(and(eq(t.notificationOutbox.dispatched, false), o.sourceIds ? inArray(t.notificationOutbox.sourceId, o.sourceIds) : undefined))
    .limit(o.limit ?? 1000));
}

/** Ordering keys that still have something to deliver (to wake their workflows at start). */
export async function keysWithPending(store: Store): Promise<string[]> {
  const rows = await store.read(({ db, t }) => db.selectDistinct({ k: t.notificationOutbox.orderingKey }).from(t.notificationOutbox)
    .where(eq(t.notificationOutbox.state, 'PENDING')));
  return rows.map((r) => r.k);
}

export function markDispatched(store: Store, ids: string[]): Promise<void> {
  if (!ids.length) return Promise.resolve();
  return store.read(async ({ db, t }) => { await db.update(t.notificationOutbox).set({ dispatched: true }).where(inArray(t.notificationOutbox.id, ids)); });
}

/** One delivery attempt's outcome: DELIVERED, or still PENDING with the error. A row no longer PENDING is left alone. */
export function recordAttempt(store: Store, id: string, error: string | undefined): Promise<void> {
  const now = new Date().toISOString();
  return store.read(async ({ db, t }) => {
    await db.update(t.notificationOutbox).set({
      attempts: sql`${t.notificationOutbox.attempts} + 1`, lastAttemptAt: now, lastError: error ?? null,
      ...(error ? {} : { state: 'DELIVERED' as const, finishedAt: now }),
    }).where(and(eq(t.notificationOutbox.id, id), eq(t.notificationOutbox.state, 'PENDING')));
  });
}

/** Given up on: FAILED with why (the last attempt's error is kept in lastError when `reason` is not given). */
export function markFailed(store: Store, id: string, reason?: string): Promise<void> {
  return store.read(async ({ db, t }) => {
    await db.update(t.notificationOutbox).set({ state: 'FAILED', finishedAt: new Date().toISOString(), ...(reason ? { lastError: reason } : {}) })
      .where(and(eq(t.notificationOutbox.id, id), eq(t.notificationOutbox.state, 'PENDING')));
  });
}

/** A subscription's notifications, newest first (optionally one state). */
export function deliveriesOf(store: Store, subscriptionId: string, o: { state?: OutboxRow['state']; limit: number }): Promise<OutboxRow[]> {
  return store.read(({ db, t }) => db.select().from(t.notificationOutbox)
    .where(and(eq(t.notificationOutbox.subscriptionId, subscriptionId), o.state ? eq(t.notificationOutbox.state, o.state) : undefined))
    .orderBy(desc(t.notificationOutbox.createdAt), desc(t.notificationOutbox.seq)).limit(o.limit));
}

/** The deliveries of these sources (CADF events: one row per sink). */
export function deliveriesOfSources(store: Store, kind: OutboxRow['kind'], sourceIds: string[]): Promise<OutboxRow[]> {
  if (!sourceIds.length) return Promise.resolve([]);
  return store.read(({ db, t }) => db.select().from(t.notificationOutbox)
    .where(and(eq(t.notificationOutbox.kind, kind), inArray(t.notificationOutbox.sourceId, sourceIds))).orderBy(asc(t.notificationOutbox.sink)));
}

/** Inside a transaction: a subscription's rows go with it. */
export async function deleteOfSubscriptionIn({ db, t }: Q, subscriptionId: string): Promise<void> {
  await db.delete(t.notificationOutbox).where(eq(t.notificationOutbox.subscriptionId, subscriptionId));
}
