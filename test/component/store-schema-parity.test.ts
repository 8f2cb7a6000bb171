/**
 * SQLite and PostgreSQL hold the same tables and columns under the same
 * names: in the drizzle schemas (schema.ts, schema-pg.ts) and in the
 * databases their migrations (drizzle/, drizzle-pg/) actually build.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { getTableConfig as sqliteTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { getTableConfig as pgTableConfig, PgTable } from 'drizzle-orm/pg-core';
import * as sqliteSchema from '../../store/schema';
import * as pgSchema from '../../store/schema-pg';
import { openStore } from '../../store/store';
import { startPostgres, type TestPostgres } from '../support/postgres';

type Shape = Record<string, { columns: Record<string, { notNull: boolean }>; primaryKey: string[]; indexes: string[] }>;

const tablesOf = (module: object): unknown[] => Object.values(module);

function sqliteShape(): Shape {
  const out: Shape = {};
  for (const t of tablesOf(sqliteSchema).filter((v): v is SQLiteTable => v instanceof SQLiteTable)) {
    const c = sqliteTableConfig(t);
    out[c.name] = {
      columns: Object.fromEntries(c.columns.map((col) => [col.name, { notNull: col.notNull }])),
      primaryKey: [...c.columns.filter((col) => col.primary).map((col) => col.name), ...c.primaryKeys.flatMap((pk) => pk.columns.map((col) => col.name))].sort(),
      indexes: c.indexes.map((i) => i.config.name).sort(),
    };
  }
  return out;
}

function pgShape(): Shape {
  const out: Shape = {};
  for (const t of tablesOf(pgSchema).filter((v): v is PgTable => v instanceof PgTable)) {
    const c = pgTableConfig(t);
    out[c.name] = {
      columns: Object.fromEntries(c.columns.map((col) => [col.name, { notNull: col.notNull }])),
      primaryKey: [...c.columns.filter((col) => col.primary).map((col) => col.name), ...c.primaryKeys.flatMap((pk) => pk.columns.map((col) => col.name))].sort(),
      indexes: c.indexes.map((i) => i.config.name ?? '').sort(),
    };
  }
  return out;
}

/** Tables that exist on SQLite only, for upgrades from older versions. */
const SQLITE_ONLY = new Set(['legacy_package_contents', '__drizzle_migrations']);

describe('store schemas', () => {
  it('declare the same tables, columns, nullability, keys and indexes on both dialects', () => {
    const sqlite = sqliteShape();
    expect(Object.keys(sqlite).length).toBeGreaterThanOrEqual(6);
    expect(pgShape()).toEqual(sqlite);
  });

  describe('as migrated', () => {
    let pg: TestPostgres;
    let dataDir: string;
    beforeAll(async () => {
      pg = await startPostgres();
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nfv-parity-'));
    });
    afterAll(() => {
      pg?.stop();
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('build databases with the same tables and columns', async () => {
      for (const cfg of [{ dataDir }, { dataDir, databaseUrl: pg.url }]) await (await openStore(cfg)).close();

      const file = new Database(path.join(dataDir, 'orchestrator.db'), { readonly: true });
      const sqliteTables = (file.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[])
        .map((r) => r.name).filter((n) => !SQLITE_ONLY.has(n));
      const fromSqlite = Object.fromEntries(sqliteTables.map((t) => [t,
        (file.prepare(`SELECT name FROM pragma_table_info(?)`).all(t) as { name: string }[]).map((c) => c.name).sort()]));
      file.close();

      const client = new Client({ connectionString: pg.url });
      await client.connect();
      const { rows } = await client.query<{ table_name: string; column_name: string }>(
        "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'");
      await client.end();
      const fromPg: Record<string, string[]> = {};
      for (const r of rows) (fromPg[r.table_name] ??= []).push(r.column_name);
      for (const cols of Object.values(fromPg)) cols.sort();

      expect(Object.keys(fromSqlite).sort()).toEqual(Object.keys(sqliteShape()).sort());
      expect(fromPg).toEqual(fromSqlite);
    });
  });
});
