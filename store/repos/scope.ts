/**
 * Project ownership in queries: every read or write of an owned resource
 * goes through a repository function that takes a Scope, so no route can
 * forget the filter. `all` (admins) sees every project.
 */
import { and, eq, or, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';

export interface Scope { projectId: string; all: boolean }

/** The system itself (workers, reconcilers): not limited to a project. */
export const SYSTEM: Scope = { projectId: '', all: true };

/** `project_id = <caller's>` unless the scope sees every project. */
export function owned(column: SQLiteColumn, scope: Scope): SQL | undefined {
  return scope.all ? undefined : eq(column, scope.projectId);
}

/** A condition combined with the ownership filter. */
export function ownedAnd(column: SQLiteColumn, scope: Scope, ...conditions: (SQL | undefined)[]): SQL | undefined {
  return and(owned(column, scope), ...conditions);
}

/** Owned, or marked shared with every project (the default VIM). */
export function ownedOrShared(column: SQLiteColumn, shared: SQLiteColumn, scope: Scope): SQL | undefined {
  return scope.all ? undefined : or(eq(column, scope.projectId), eq(shared, true));
}
