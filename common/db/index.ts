/**
 * Opens the SQLite file (WAL, busy timeout so API and worker processes can
 * share it) and applies the committed migrations in drizzle/.
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { drizzle, BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { privateDataDir } from '../data-dir';
import * as schema from './schema';

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

const MIGRATIONS = path.resolve(__dirname, '../../drizzle');

export function openDb(dataDir: string): Db {
  privateDataDir(dataDir);
  const sqlite = new Database(path.join(dataDir, 'orchestrator.db'));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 10000');
  sqlite.pragma('foreign_keys = ON');
  const db = drizzle(sqlite, { schema }) as Db;
  applyMigrations(db);
  return db;
}

export { schema };

/** API and worker may start together on one file: if the other process won
 *  the race, its migration is visible on a second look. */
function applyMigrations(db: Db): void {
  for (let attempt = 1; ; attempt++) {
    try {
      migrate(db, { migrationsFolder: MIGRATIONS });
      return;
    } catch (e) {
      if (attempt >= 5) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200 * attempt);
    }
  }
}
