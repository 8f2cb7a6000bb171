/** Magnum's quotas: one hard limit per project and resource ("Cluster"). */
import { and, eq, gt } from 'drizzle-orm';
import type * as schema from '../../schema';
import type { Store } from '../../store';
import { isUniqueViolation } from '../../sql-store';
import { first } from '../rows';

export type QuotaRow = typeof schema.magnumQuotas.$inferSelect;

export function quotaOf(store: Store, projectId: string, resource: string): Promise<QuotaRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.magnumQuotas).where(and(eq(t.magnumQuotas.projectId, projectId), eq(t.magnumQuotas.resource, resource))).limit(1)));
}

/** Every quota (admins) or one project's, by id, after `marker`. */
export function listQuotas(store: Store, projectId: string | undefined, marker: number, limit: number): Promise<QuotaRow[]> {
  return store.read(({ db, t }) => db.select().from(t.magnumQuotas)
    .where(and(projectId ? eq(t.magnumQuotas.projectId, projectId) : undefined, gt(t.magnumQuotas.id, marker)))
    .orderBy(t.magnumQuotas.id).limit(limit));
}

/** A new quota; undefined when the project has one for the resource already. */
export async function createQuota(store: Store, projectId: string, resource: string, hardLimit: number): Promise<QuotaRow | undefined> {
  const now = new Date().toISOString();
  try {
    return await store.read(async ({ db, t }) => (await db.insert(t.magnumQuotas).values({ projectId, resource, hardLimit, createdAt: now }).returning())[0]);
  } catch (e) {
    if (isUniqueViolation(e)) return undefined;
    throw e;
  }
}

export function updateQuota(store: Store, projectId: string, resource: string, hardLimit: number): Promise<QuotaRow | undefined> {
  return store.read(async ({ db, t }) => (await db.update(t.magnumQuotas).set({ hardLimit, updatedAt: new Date().toISOString() })
    .where(and(eq(t.magnumQuotas.projectId, projectId), eq(t.magnumQuotas.resource, resource))).returning())[0]);
}

export function deleteQuota(store: Store, projectId: string, resource: string): Promise<boolean> {
  return store.read(async ({ db, t }) => (await db.delete(t.magnumQuotas)
    .where(and(eq(t.magnumQuotas.projectId, projectId), eq(t.magnumQuotas.resource, resource))).returning()).length > 0);
}
