/**
 * Coordinations parked on their EM (schema.ts coordinationWaits): written by
 * the wait's activity, polled by the worker's coordination poller. Any
 * worker's poller may take a due wait: a claim moves its next poll ahead, so
 * two pollers never poll one wait at once, and a poller that dies mid-poll
 * leaves it due again when the claim runs out.
 */
import { and, asc, eq, inArray, lte } from 'drizzle-orm';
import type { Store } from '../store';
import { first } from './rows';

export interface CoordinationWait {
  id: string;
  opOccId: string;
  args: string;
  taskToken: string;
  location: string | null;
  deadline: number;
  timeoutMs: number;
  nextPollAt: number;
}

export function parkWait(store: Store, w: CoordinationWait): Promise<void> {
  return store.read(async ({ db, t }) => {
    await db.insert(t.coordinationWaits).values(w).onConflictDoUpdate({ target: t.coordinationWaits.id, set: w });
  });
}

/** A retry's attempt takes over the wait an earlier attempt parked, at once due; false when there is none. */
export function rearmWait(store: Store, id: string, taskToken: string, now: number): Promise<boolean> {
  return store.read(async ({ db, t }) => (await db.update(t.coordinationWaits).set({ taskToken, nextPollAt: now })
    .where(eq(t.coordinationWaits.id, id)).returning({ id: t.coordinationWaits.id })).length > 0);
}

/** Up to `limit` waits due at `now`, claimed by this poller until `claimUntil`. */
export function claimDueWaits(store: Store, now: number, claimUntil: number, limit: number): Promise<CoordinationWait[]> {
  return store.read(async ({ db, t }) => {
    const w = t.coordinationWaits;
    const due = await db.select({ id: w.id }).from(w).where(lte(w.nextPollAt, now)).orderBy(asc(w.nextPollAt)).limit(limit);
    if (!due.length) return [];
    // another poller may have claimed some of them since: the condition is checked again by the update
    return db.update(w).set({ nextPollAt: claimUntil }).where(and(inArray(w.id, due.map((d) => d.id)), lte(w.nextPollAt, now))).returning();
  });
}

/** The next poll of a wait, unless it was dropped or taken over by another attempt meanwhile (then false). */
export function rescheduleWait(store: Store, w: Pick<CoordinationWait, 'id' | 'taskToken'>, next: { location: string | null; nextPollAt: number }): Promise<boolean> {
  return store.read(async ({ db, t }) => (await db.update(t.coordinationWaits).set(next)
    .where(and(eq(t.coordinationWaits.id, w.id), eq(t.coordinationWaits.taskToken, w.taskToken))).returning({ id: t.coordinationWaits.id })).length > 0);
}

/** The wait is over: removed, unless another attempt has taken it over meanwhile (`taskToken` given). */
export function removeWait(store: Store, id: string, taskToken?: string): Promise<void> {
  return store.read(async ({ db, t }) => {
    const w = t.coordinationWaits;
    await db.delete(w).where(taskToken === undefined ? eq(w.id, id) : and(eq(w.id, id), eq(w.taskToken, taskToken)));
  });
}

export function waitById(store: Store, id: string): Promise<CoordinationWait | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.coordinationWaits).where(eq(t.coordinationWaits.id, id)).limit(1)));
}

/** The waits of one op (one per VNFC coordination in flight). */
export function waitsOfOp(store: Store, opOccId: string): Promise<CoordinationWait[]> {
  return store.read(({ db, t }) => db.select().from(t.coordinationWaits).where(eq(t.coordinationWaits.opOccId, opOccId)));
}
