/** LCM notification subscriptions: owned by a project (Scope); another project's is not found. */
import { asc, count, eq } from 'drizzle-orm';
import { checkQuota } from '../quota';
import type * as schema from '../schema';
import type { Store } from '../store';
import type { Q } from '../sql-store';
import { deleteOfSubscriptionIn } from './notifications';
import { json, listPage, text, type ListSpec, type PageRequest } from './list-page';
import { first } from './rows';
import { owned, ownedAnd, type Scope } from './scope';

export type SubscriptionRow = typeof schema.lccnSubscriptions.$inferSelect;
export type SubscriptionInsert = typeof schema.lccnSubscriptions.$inferInsert;

/** A new subscription, unless its project holds `quota` already (QuotaExceeded, nothing written); returns the row written. */
export function createSubscription(store: Store, row: SubscriptionInsert, quota?: number): Promise<SubscriptionRow> {
  return store.tx(async ({ db, t }) => {
    if (quota !== undefined) {
      const [{ n }] = await db.select({ n: count() }).from(t.lccnSubscriptions).where(eq(t.lccnSubscriptions.projectId, row.projectId));
      checkQuota('subscriptions', quota, n);
    }
    const [made] = await db.insert(t.lccnSubscriptions).values(row).returning();
    return made;
  });
}

/** SOL003 LccnSubscription: the attributes a list filter reaches (the filter's own members through its JSON). */
export const SUBSCRIPTION_LIST: ListSpec = {
  table: (t) => t.lccnSubscriptions,
  created: 'createdAt',
  attributes: {
    id: text((t) => t.lccnSubscriptions.id),
    callbackUri: text((t) => t.lccnSubscriptions.callbackUri),
    verbosity: text((t) => t.lccnSubscriptions.verbosity),
    filter: json((t) => t.lccnSubscriptions.filter),
  },
};

/** One page of a project's subscriptions, filtered in SQL. */
export function pageOfSubscriptions(store: Store, scope: Scope, page: PageRequest) {
  return listPage<SubscriptionRow>(store, SUBSCRIPTION_LIST, (t) => owned(t.lccnSubscriptions.projectId, scope), page);
}

export function findSubscription(store: Store, scope: Scope, id: string): Promise<SubscriptionRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.lccnSubscriptions)
    .where(ownedAnd(t.lccnSubscriptions.projectId, scope, eq(t.lccnSubscriptions.id, id))).limit(1)));
}

/** The system's view (the delivery activity). */
export function subscriptionById(store: Store, id: string): Promise<SubscriptionRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.lccnSubscriptions).where(eq(t.lccnSubscriptions.id, id)).limit(1)));
}

/** Inside a transaction: every subscription of a project (the filters are matched by the caller). */
export function subscriptionsOfProjectIn({ db, t }: Q, projectId: string): Promise<SubscriptionRow[]> {
  return db.select().from(t.lccnSubscriptions).where(eq(t.lccnSubscriptions.projectId, projectId)).orderBy(asc(t.lccnSubscriptions.createdAt));
}

/** Deletes the subscription and its queued and past notifications; false when the scope has no such subscription. */
export function deleteSubscription(store: Store, scope: Scope, id: string): Promise<boolean> {
  return store.tx(async (q) => {
    const gone = await q.db.delete(q.t.lccnSubscriptions)
      .where(ownedAnd(q.t.lccnSubscriptions.projectId, scope, eq(q.t.lccnSubscriptions.id, id))).returning({ id: q.t.lccnSubscriptions.id });
    if (!gone.length) return false;
    await deleteOfSubscriptionIn(q, id);
    return true;
  });
}
