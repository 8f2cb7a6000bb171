/**
 * The running product's own store, for tests that look behind the API (a
 * pinned host key) or change it behind the product's back (a package file
 * removed between check and use): the same repositories and query builder the
 * product uses, on whichever store the harness gave it (TEST_STORE=postgres:
 * PostgreSQL at DATABASE_URL; otherwise the SQLite file in its DATA_DIR), and
 * its content store (PACKAGE_STORE, as the product chose it).
 */
import { packageStoreFromEnv } from '../../common/config';
import { openStore, type Store } from '../../store';
import type { Dialect } from '../../store/sql-store';
import { readState } from '../harness/state';

export function productDialect(): Dialect {
  return readState().env.DATABASE_URL ? 'postgres' : 'sqlite';
}

/** Opens the product's store for `fn` and closes it after. */
export async function withProductStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const s = readState();
  const databaseUrl = s.env.DATABASE_URL || undefined;
  const store = await openStore({ dataDir: s.dataDir, databaseUrl, ...packageStoreFromEnv(s.env, s.dataDir, databaseUrl) });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
