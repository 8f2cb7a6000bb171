/**
 * The database as the repositories see it (store/repos): `read` (no
 * transaction) or `tx` (all-or-nothing, and serialized against other
 * transactions: SQLite BEGIN IMMEDIATE, PostgreSQL SERIALIZABLE with
 * retries), so a check-then-write such as "one open op occ per VNF
 * instance" holds on both dialects. store.ts opens one; store-sqlite.ts and
 * store-pg.ts implement it.
 */
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import * as schema from './schema';

export type Dialect = 'sqlite' | 'postgres';

/** The tables, as the repositories name them (the dialect's own at run time). */
export interface Tables {
  vims: typeof schema.vims;
  vnfPackages: typeof schema.vnfPackages;
  vnfPackageFiles: typeof schema.vnfPackageFiles;
  contentObjects: typeof schema.contentObjects;
  contentChunks: typeof schema.contentChunks;
  vnfInstances: typeof schema.vnfInstances;
  vnfLcmOpOccs: typeof schema.vnfLcmOpOccs;
  sshHostKeys: typeof schema.sshHostKeys;
  coordinationWaits: typeof schema.coordinationWaits;
  clusters: typeof schema.clusters;
  clusterNodes: typeof schema.clusterNodes;
  clusterPki: typeof schema.clusterPki;
  magnumTemplates: typeof schema.magnumTemplates;
  magnumClusters: typeof schema.magnumClusters;
  magnumNodegroups: typeof schema.magnumNodegroups;
  magnumQuotas: typeof schema.magnumQuotas;
  cadfEvents: typeof schema.cadfEvents;
  lccnSubscriptions: typeof schema.lccnSubscriptions;
  notificationOutbox: typeof schema.notificationOutbox;
}

/** What a repository function gets inside `read` or `tx`: the query builder and the tables. */
export interface Q {
  db: BetterSQLite3Database<typeof schema>;
  t: Tables;
  dialect: Dialect;
}

/** The database alone: what the repositories query. */
export interface SqlStore {
  readonly dialect: Dialect;
  /** Queries outside a transaction. */
  read<T>(fn: (q: Q) => Promise<T>): Promise<T>;
  /** A transaction: all of `fn`'s writes or none; `fn` may run again after a serialization conflict, so it only touches the database. */
  tx<T>(fn: (q: Q) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A transaction's queries as a store, for repository functions called inside it: their `read` and `tx` join the transaction. */
export function within(q: Q): SqlStore {
  return { dialect: q.dialect, read: (fn) => fn(q), tx: (fn) => fn(q), close: async () => undefined };
}

/** A unique index refused the write (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT_UNIQUE), wrapped by drizzle or not. */
export function isUniqueViolation(e: unknown): boolean {
  for (let c: unknown = e; c && typeof c === 'object'; c = (c as { cause?: unknown }).cause) {
    const code = (c as { code?: unknown }).code;
    if (code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE') return true;
  }
  return false;
}

/**
 * A transaction that met conflicting ones every time it ran (PostgreSQL's
 * serialization failures, as many runs as the store allows): nothing was
 * written. The API answers 503 with Retry-After: the caller may send the
 * same request again at once, unlike a 500.
 */
export class StoreBusy extends Error {
  readonly retryAfterS = 1;
  constructor(runs: number, cause: unknown) {
    super(`the database refused the transaction ${runs} times under concurrent writes; nothing was written`, { cause });
    this.name = 'StoreBusy';
  }
}
