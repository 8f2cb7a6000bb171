/**
 * The shared store: PostgreSQL through node-postgres (a pool per process),
 * migrations from drizzle-pg/ under an advisory lock (API and workers on many
 * hosts may start at once). Transactions are SERIALIZABLE and run again on a
 * serialization failure, so they behave like SQLite's one-writer-at-a-time
 * without a lock per call site.
 */
import path from 'node:path';
import { Client, Pool } from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import * as pgSchema from './schema-pg';
import type * as sqliteSchema from './schema';
import { StoreBusy, type Q, type SqlStore, type Tables } from './sql-store';

const MIGRATIONS = path.resolve(__dirname, '../drizzle-pg');
/** pg_advisory_lock key of the migration step (any constant shared by all our processes). */
const MIGRATION_LOCK = 7_140_412_001;
/*
 * Runs of a transaction that met a serialization failure. Creates at once in
 * one project all read its quota count and insert under it, so each round
 * lets about one through; the pause before the next run is drawn at random
 * from a window that doubles up to a second ("full jitter"), which spreads a
 * burst of 100 out within a few rounds. 8 runs with pauses of 20 ms let ten
 * creates on a loaded machine run out (a 500 in the landing of stop 39).
 */
const MAX_ATTEMPTS = 30;
const FIRST_WINDOW_MS = 10;
const MAX_WINDOW_MS = 1000;

/*
 * The repositories are typed against the SQLite builder (store.ts). That is
 * sound here only while both schemas give the same row and insert types,
 * which these lines check at compile time, table by table.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type SameRows<K extends keyof Tables> =
  Same<(typeof sqliteSchema)[K]['$inferSelect'], (typeof pgSchema)[K]['$inferSelect']> extends true
    ? Same<(typeof sqliteSchema)[K]['$inferInsert'], (typeof pgSchema)[K]['$inferInsert']> : false;
const rowTypesMatch: { [K in keyof Tables]: SameRows<K> } = {
  vims: true, vnfPackages: true, vnfPackageFiles: true, contentObjects: true, contentChunks: true, vnfInstances: true, vnfLcmOpOccs: true, sshHostKeys: true, coordinationWaits: true,
  clusters: true, clusterNodes: true, clusterPki: true,
  magnumTemplates: true, magnumClusters: true, magnumNodegroups: true, magnumQuotas: true, cadfEvents: true,
  lccnSubscriptions: true, notificationOutbox: true,
};
void rowTypesMatch;

type PgDb = NodePgDatabase<typeof pgSchema>;

/** The one place the pg builder is seen under the SQLite builder's types (sound by the check above). */
function asQ(db: PgDb): Q {
  const bridged = { db, t: pgSchema } as unknown as Pick<Q, 'db' | 't'>;
  return { ...bridged, dialect: 'postgres' };
}

/** `maxAttempts`: runs of a transaction before StoreBusy (tests lower it to meet the end of the budget). */
export async function openPgStore(url: string, { maxAttempts = MAX_ATTEMPTS } = {}): Promise<SqlStore> {
  await applyMigrations(url);
  const pool = new Pool({ connectionString: url, max: 10 });
  // An idle connection the server dropped (restart, failover): the pool opens a new one; unheard, the event would end the process.
  pool.on('error', () => undefined);
  const db = drizzle(pool, { schema: pgSchema });
  const q = asQ(db);
  return {
    dialect: 'postgres',
    read: (fn) => fn(q),
    tx: async (fn) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await db.transaction((tx) => fn(asQ(tx)), { isolationLevel: 'serializable' });
        } catch (e) {
          if (!isSerializationFailure(e)) throw e;
          if (attempt >= maxAttempts) throw new StoreBusy(attempt, e);
          await new Promise((r) => setTimeout(r, Math.random() * Math.min(MAX_WINDOW_MS, FIRST_WINDOW_MS * 2 ** attempt)));
        }
      }
    },
    close: () => pool.end(),
  };
}

/** 40001 serialization_failure, 40P01 deadlock_detected: the transaction did nothing and may run again. */
function isSerializationFailure(e: unknown): boolean {
  for (let c: unknown = e; c && typeof c === 'object'; c = (c as { cause?: unknown }).cause) {
    const code = (c as { code?: unknown }).code;
    if (code === '40001' || code === '40P01') return true;
  }
  return false;
}

async function applyMigrations(url: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS });
  } finally {
    await client.end(); // ends the session, which releases the lock
  }
}
