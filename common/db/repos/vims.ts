/**
 * VIMs as a project sees them: its own, plus the configured default VIM,
 * which belongs to the admin project and is shared read-only with all.
 */
import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '..';
import { vims } from '../schema';
import { owned, ownedAnd, ownedOrShared, type Scope } from './scope';

export type VimRow = typeof vims.$inferSelect;

export function listVims(db: Db, scope: Scope): VimRow[] {
  return db.select().from(vims).where(ownedOrShared(vims.projectId, vims.shared, scope)).orderBy(vims.createdAt).all();
}

/** A VIM the project may use (its own or shared). */
export function findUsableVim(db: Db, scope: Scope, id: string): VimRow | undefined {
  return db.select().from(vims).where(and(ownedOrShared(vims.projectId, vims.shared, scope), eq(vims.id, id))).get();
}

/** A VIM the project may change: its own (admins: any). */
export function findOwnedVim(db: Db, scope: Scope, id: string): VimRow | undefined {
  return db.select().from(vims).where(ownedAnd(vims.projectId, scope, eq(vims.id, id))).get();
}

/** Where an instantiate without vimConnectionInfo goes: the project's own default VIM, else the shared default. */
export function defaultVimFor(db: Db, scope: Scope): VimRow | undefined {
  const own = scope.all ? undefined : db.select().from(vims).where(and(owned(vims.projectId, scope), eq(vims.isDefault, true))).get();
  return own ?? db.select().from(vims).where(and(eq(vims.shared, true), eq(vims.isDefault, true))).orderBy(desc(vims.createdAt)).get();
}
