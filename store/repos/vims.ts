/**
 * VIMs as a project sees them: its own, plus the configured default VIM,
 * which belongs to the admin project and is shared read-only with all. A
 * project's access to a shared VIM (a row with accessOf: the VIM's login
 * through a trust from one of the project's members) is the system's, never
 * one of the project's VIMs.
 */
import crypto from 'node:crypto';
import { and, desc, eq, inArray, isNull, or } from 'drizzle-orm';
import type { Store } from '../store';
import type { Q } from '../sql-store';
import { first, type VimInsert, type VimRow } from './rows';
import { owned, ownedAnd, ownedOrShared, type Scope } from './scope';

export type { VimRow };

export function listVims(store: Store, scope: Scope): Promise<VimRow[]> {
  return store.read(({ db, t }) => db.select().from(t.vims).where(and(ownedOrShared(t.vims.projectId, t.vims.shared, scope), isNull(t.vims.accessOf))).orderBy(t.vims.createdAt));
}

/** A VIM the project may use (its own or shared). */
export function findUsableVim(store: Store, scope: Scope, id: string): Promise<VimRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.vims).where(and(ownedOrShared(t.vims.projectId, t.vims.shared, scope), eq(t.vims.id, id), isNull(t.vims.accessOf))).limit(1)));
}

/** A VIM the project may change: its own (admins: any). */
export function findOwnedVim(store: Store, scope: Scope, id: string): Promise<VimRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.vims).where(ownedAnd(t.vims.projectId, scope, and(eq(t.vims.id, id), isNull(t.vims.accessOf)))).limit(1)));
}

/** Where an instantiate without vimConnectionInfo goes: the project's own default VIM, else the shared default. */
export function defaultVimFor(store: Store, scope: Scope): Promise<VimRow | undefined> {
  return store.read(async ({ db, t }) => {
    const own = scope.all ? undefined : await first(db.select().from(t.vims).where(and(owned(t.vims.projectId, scope), eq(t.vims.isDefault, true))).limit(1));
    return own ?? first(db.select().from(t.vims).where(and(eq(t.vims.shared, true), eq(t.vims.isDefault, true))).orderBy(desc(t.vims.createdAt)).limit(1));
  });
}

/** A project's access to a shared VIM, if one was made. */
export function projectAccessTo(store: Store, vimId: string, projectId: string): Promise<VimRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.vims).where(and(eq(t.vims.accessOf, vimId), eq(t.vims.projectId, projectId))).limit(1)));
}

/**
 * The project's access to the shared VIM `vim`, made or given the new trust
 * (its instances and clusters keep the row's id, so they follow). Its login
 * stays the shared VIM's own (not copied: infra/vim.ts reads it there).
 */
export function saveProjectAccess(store: Store, vim: VimRow, projectId: string, trustId: string): Promise<string> {
  const now = new Date().toISOString();
  return store.tx(async ({ db, t }) => {
    const [row] = await db.insert(t.vims).values({
      id: crypto.randomUUID(), projectId, shared: false, isDefault: false, accessOf: vim.id, trustId,
      name: `${vim.name} (project ${projectId})`, description: `project ${projectId} on the shared VIM ${vim.id}, through a trust`,
      type: vim.type, authUrl: vim.authUrl, username: vim.username, passwordSealed: '', project: vim.project,
      projectDomain: vim.projectDomain, userDomain: vim.userDomain, region: vim.region, caCert: vim.caCert, status: 'REACHABLE', createdAt: now, updatedAt: now,
    }).onConflictDoUpdate({ target: [t.vims.accessOf, t.vims.projectId], set: { trustId, updatedAt: now } }).returning({ id: t.vims.id });
    return row.id;
  });
}

/** Any project's VIM (the system's view: workers open clients with it). */
export function vimById(store: Store, id: string): Promise<VimRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.vims).where(eq(t.vims.id, id)).limit(1)));
}

/** One default VIM per project: a new default clears the old mark, in the same transaction. */
async function clearDefaults({ db, t }: Q, projectId: string): Promise<void> {
  await db.update(t.vims).set({ isDefault: false }).where(eq(t.vims.projectId, projectId));
}

export function registerVim(store: Store, row: VimInsert & { projectId: string }): Promise<void> {
  return store.tx(async (q) => {
    if (row.isDefault) await clearDefaults(q, row.projectId);
    await q.db.insert(q.t.vims).values(row);
  });
}

export function updateVim(store: Store, current: Pick<VimRow, 'id' | 'projectId'>, set: Partial<Omit<VimRow, 'id' | 'projectId'>>): Promise<void> {
  return store.tx(async (q) => {
    if (set.isDefault) await clearDefaults(q, current.projectId);
    await q.db.update(q.t.vims).set(set).where(eq(q.t.vims.id, current.id));
  });
}

/** What still runs on a VIM, through the projects' accesses too (a VNF instance, else a Kubernetes cluster), named for the refusal; undefined when nothing does. */
export function vimInUse(store: Store, vimId: string): Promise<string | undefined> {
  return store.read(async ({ db, t }) => {
    const ids = [vimId, ...(await db.select({ id: t.vims.id }).from(t.vims).where(eq(t.vims.accessOf, vimId))).map((r) => r.id)];
    const inst = await first(db.select({ id: t.vnfInstances.id }).from(t.vnfInstances).where(inArray(t.vnfInstances.vimId, ids)).limit(1));
    if (inst) return `VNF instance ${inst.id}`;
    const cluster = await first(db.select({ id: t.clusters.id, name: t.clusters.name }).from(t.clusters).where(inArray(t.clusters.vimId, ids)).limit(1));
    return cluster ? `cluster ${cluster.name} (${cluster.id})` : undefined;
  });
}

/** The VIM and the projects' accesses to it. */
export function deleteVim(store: Store, id: string): Promise<void> {
  return store.tx(async ({ db, t }) => { await db.delete(t.vims).where(or(eq(t.vims.id, id), eq(t.vims.accessOf, id))); });
}

/** Whether any project has a VIM of this id. */
export async function vimIdTaken(store: Store, id: string): Promise<boolean> {
  return (await store.read(({ db, t }) => db.select({ id: t.vims.id }).from(t.vims).where(eq(t.vims.id, id)).limit(1))).length > 0;
}

/**
 * Inside the operation's transaction: an inline VIM (vimConnectionInfo with
 * credentials) created, or updated when the project owns that id. False when
 * another project owns it (nothing written).
 */
export async function upsertInlineVim({ db, t }: Q, projectId: string, id: string,
  row: Omit<VimInsert, 'id' | 'projectId' | 'shared' | 'isDefault' | 'createdAt'> & { updatedAt: string }): Promise<boolean> {
  const written = await db.insert(t.vims).values({ id, projectId, shared: false, isDefault: false, createdAt: row.updatedAt, ...row })
    .onConflictDoUpdate({ target: t.vims.id, set: row, setWhere: eq(t.vims.projectId, projectId) }).returning({ id: t.vims.id });
  return written.length > 0;
}

/**
 * The configured default VIM as the one shared default row (named
 * 'default'), created or refreshed; `projectId` undefined keeps the owner of
 * an existing row. Returns its id.
 */
export function saveConfiguredDefaultVim(store: Store, row: Omit<VimInsert, 'id' | 'createdAt' | 'projectId'> & { projectId?: string }): Promise<string> {
  return store.tx(async ({ db, t }) => {
    // the shared row only: a project's own VIM named 'default' is not the deployment's
    const existing = await first(db.select({ id: t.vims.id }).from(t.vims)
      .where(and(eq(t.vims.isDefault, true), eq(t.vims.shared, true), eq(t.vims.name, 'default'))).orderBy(t.vims.createdAt).limit(1));
    if (existing) {
      await db.update(t.vims).set(row).where(eq(t.vims.id, existing.id));
      return existing.id;
    }
    const id = crypto.randomUUID();
    await db.insert(t.vims).values({ id, createdAt: new Date().toISOString(), ...row, projectId: row.projectId ?? '' });
    return id;
  });
}
