/**
 * The embedded store: one better-sqlite3 connection per process (WAL, busy
 * timeout so API and worker processes can share the file), migrations from
 * drizzle/. better-sqlite3 is synchronous and a connection has one
 * transaction, so every `read` and `tx` of this process takes its turn: a
 * query of another request can never land inside an open transaction.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { privateDataDir } from '../common/data-dir';
import * as schema from './schema';
import type { Q, SqlStore } from './sql-store';

const MIGRATIONS = path.resolve(__dirname, '../drizzle');

export function openSqliteStore(dataDir: string): SqlStore {
  privateDataDir(dataDir);
  const sqlite = new Database(path.join(dataDir, 'orchestrator.db'));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 10000');
  const db = drizzle(sqlite, { schema });
  // SQLite changes a table's constraints by copying it into a new one and dropping the old: with
  // foreign keys enforced, that drop would delete (cascade) the rows of the tables that reference it.
  // The migrator runs in one transaction, where the pragma cannot change, so it is set around it.
  sqlite.pragma('foreign_keys = OFF');
  applyMigrations(() => migrate(db, { migrationsFolder: MIGRATIONS }));
  const broken = sqlite.pragma('foreign_key_check') as unknown[];
  if (broken.length) throw new Error(`the store's migrations left ${broken.length} rows whose foreign keys point nowhere: ${JSON.stringify(broken.slice(0, 5))}`);
  sqlite.pragma('foreign_keys = ON');
  const q: Q = { db, t: schema, dialect: 'sqlite' };
  const turn = new Turns();
  return {
    dialect: 'sqlite',
    read: (fn) => turn.take(() => fn(q)),
    tx: (fn) => turn.take(async () => {
      sqlite.exec('BEGIN IMMEDIATE'); // read-then-write: the write lock first (no SQLITE_BUSY_SNAPSHOT)
      try {
        const result = await fn(q);
        sqlite.exec('COMMIT');
        return result;
      } catch (e) {
        if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
        throw e;
      }
    }),
    close: async () => { sqlite.close(); },
  };
}

/** One at a time, in call order; a store call from inside another would wait for itself, so it throws. */
class Turns {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly inside = new AsyncLocalStorage<true>();

  take<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inside.getStore()) return Promise.reject(new Error('store call inside a store call: pass the Q on instead'));
    const run = this.tail.then(() => this.inside.run(true, fn));
    this.tail = run.catch(() => undefined);
    return run;
  }
}

/** API and worker may start together on one file: if the other process won the race, its migration is visible on a second look. */
function applyMigrations(run: () => void): void {
  for (let attempt = 1; ; attempt++) {
    try {
      run();
      return;
    } catch (e) {
      if (attempt >= 5) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200 * attempt);
    }
  }
}
