/**
 * The product's database behind one interface, on SQLite (embedded default,
 * a file in DATA_DIR) or PostgreSQL (DATABASE_URL=postgres://..., for many
 * API and worker hosts), with the package content beside it. Every query
 * lives in store/repos, against the SqlStore interface (sql-store.ts).
 *
 * The repositories are written once against drizzle's SQLite query-builder
 * types (schema.ts); on PostgreSQL the same calls run on drizzle's pg builder
 * over schema-pg.ts, whose row types are checked equal (store-pg.ts). Only
 * what both builders share is used: await a builder (no .get/.all/.run),
 * .returning() to count changes, `limit(1)` for one row.
 */
import { defaultPackageStore, defaultPackageStoreDir } from '../common/config';
import { openContentStore, type ContentStore, type ContentStoreKind } from './content';
import type { SqlStore } from './sql-store';

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

export async function openStore(cfg: StoreConfig): Promise<Store> {
  const sql = cfg.databaseUrl ? await (await import('./store-pg')).openPgStore(cfg.databaseUrl) : (await import('./store-sqlite')).openSqliteStore(cfg.dataDir);
  const kind = cfg.packageStore ?? defaultPackageStore(cfg.databaseUrl, cfg.packageStoreDir !== undefined);
  return { ...sql, content: openContentStore(kind, sql, cfg.packageStoreDir ?? defaultPackageStoreDir(cfg.dataDir)) };
}
