/**
 * Cluster templates as a project sees them (Magnum's rules): its own, plus
 * public ones that are not hidden; admins also see public hidden ones.
 */
import { and, eq, or } from 'drizzle-orm';
import type * as schema from '../../schema';
import type { Store } from '../../store';
import { first } from '../rows';

export type TemplateRow = typeof schema.magnumTemplates.$inferSelect;
export type TemplateInsert = typeof schema.magnumTemplates.$inferInsert;

export interface Viewer { projectId: string; isAdmin: boolean }

export function visibleTemplates(store: Store, v: Viewer): Promise<TemplateRow[]> {
  return store.read(({ db, t }) => {
    const shared = v.isAdmin ? eq(t.magnumTemplates.public, true) : and(eq(t.magnumTemplates.public, true), eq(t.magnumTemplates.hidden, false));
    return db.select().from(t.magnumTemplates).where(or(eq(t.magnumTemplates.projectId, v.projectId), shared)).orderBy(t.magnumTemplates.createdAt);
  });
}

/** Any project's template (the system's view, and a cluster's own template). */
export function templateById(store: Store, id: string): Promise<TemplateRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.magnumTemplates).where(eq(t.magnumTemplates.id, id)).limit(1)));
}

export function insertTemplate(store: Store, row: TemplateInsert): Promise<TemplateRow> {
  return store.read(async ({ db, t }) => (await db.insert(t.magnumTemplates).values(row).returning())[0]);
}

/** Writes the change unless a cluster started using the template meanwhile and `allowedInUse` refuses it. */
export function updateTemplate(store: Store, id: string, set: Partial<TemplateInsert>, allowedInUse: boolean): Promise<'updated' | 'in-use'> {
  return store.tx(async ({ db, t }) => {
    if (!allowedInUse && (await first(db.select({ id: t.magnumClusters.id }).from(t.magnumClusters).where(eq(t.magnumClusters.templateId, id)).limit(1)))) return 'in-use';
    await db.update(t.magnumTemplates).set({ ...set, updatedAt: new Date().toISOString() }).where(eq(t.magnumTemplates.id, id));
    return 'updated';
  });
}

export function templateInUse(store: Store, id: string): Promise<boolean> {
  return store.read(async ({ db, t }) => !!(await first(db.select({ id: t.magnumClusters.id }).from(t.magnumClusters).where(eq(t.magnumClusters.templateId, id)).limit(1))));
}

/** Deletes the template unless a cluster uses it (checked in the same transaction). */
export function deleteTemplate(store: Store, id: string): Promise<'deleted' | 'in-use'> {
  return store.tx(async ({ db, t }) => {
    if (await first(db.select({ id: t.magnumClusters.id }).from(t.magnumClusters).where(eq(t.magnumClusters.templateId, id)).limit(1))) return 'in-use';
    await db.delete(t.magnumTemplates).where(eq(t.magnumTemplates.id, id));
    return 'deleted';
  });
}
