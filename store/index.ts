/** The product's store: SQLite by default, PostgreSQL with DATABASE_URL (store.ts). */
export { openStore, type Store, type StoreConfig } from './store';
export type { Q } from './sql-store';
