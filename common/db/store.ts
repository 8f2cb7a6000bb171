/**
 * The product's database behind one interface, on SQLite (embedded default,
 * a file in DATA_DIR) or PostgreSQL (DATABASE_URL=postgres://..., for many
 * API and worker hosts). Every query lives in common/db/repos; they run it
 * through `read` (no transaction) or `tx` (all-or-nothing, and serialized
 * against other transactions: SQLite BEGIN IMMEDIATE, PostgreSQL
 * SERIALIZABLE with retries), so a check-then-write such as "one open op occ
 * per VNF instance" holds on both.
 *
 * The repositories are written once against drizzle's SQLite query-builder
 * types (schema.ts); on PostgreSQL the same calls run on drizzle's pg builder
 * over schema-pg.ts, whose row types are checked equal (store-pg.ts). Only
 * what both builders share is used: await a builder (no .get/.all/.run),
 * .returning() to count changes, `limit(1)` for one row.
 */
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { defaultPackageStore, defaultPackageStoreDir } from '../config';
import { openContentStore, type ContentStore, type ContentStoreKind } from '../../vnfpkg/content-store';
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

export interface Store extends SqlStore {
  /** Package content (zips, package files): in this database or a directory (PACKAGE_STORE). */
  readonly content: ContentStore;
}

export interface StoreConfig {
  /** postgres://... selects PostgreSQL; unset: SQLite in dataDir. */
  databaseUrl?: string;
  dataDir: string;
  /** The content store; unset: as with PACKAGE_STORE unset and no PACKAGE_STORE_DIR (common/config.ts). */
  packageStore?: ContentStoreKind;
  /** The directory store's directory; unset: dataDir/packages. */
  packageStoreDir?: string;
}

/** A unique index refused the write (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT_UNIQUE), wrapped by drizzle or not. */
export function isUniqueViolation(e: unknown): boolean {
  for (let c: unknown = e; c && typeof c === 'object'; c = (c as { cause?: unknown }).cause) {
    const code = (c as { code?: unknown }).code;
    if (code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE') return true;
  }
  return false;
}

export async function openStore(cfg: StoreConfig): Promise<Store> {
  const sql = cfg.databaseUrl ? await (await import('./store-pg')).openPgStore(cfg.databaseUrl) : (await import('./store-sqlite')).openSqliteStore(cfg.dataDir);
  const kind = cfg.packageStore ?? defaultPackageStore(cfg.databaseUrl, cfg.packageStoreDir !== undefined);
  return { ...sql, content: openContentStore(kind, sql, cfg.packageStoreDir ?? defaultPackageStoreDir(cfg.dataDir)) };
}
