/** The product's store: SQLite by default, PostgreSQL with DATABASE_URL (store.ts). */
export { openStore, type Store, type StoreConfig, type Q } from './store';
