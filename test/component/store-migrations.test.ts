/**
 * A store written by an older version is migrated without losing rows:
 * SQLite rebuilds a table to add constraints (copy, drop, rename), and with
 * foreign keys enforced the drop of vnf_packages would delete its package
 * files (ON DELETE CASCADE). The database is made with the migrations before
 * a given one, filled, then opened by today's store. Package files whose
 * bytes older versions kept in vnf_package_files are still read, then moved
 * into the content store (as the API does at start), on both dialects.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { Client } from 'pg';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { eq } from 'drizzle-orm';
import { openStore, type Store } from '../../store';
import { drainLegacyPackageFiles } from '../../store/legacy-package-contents';
import { packageFileIndex, packageFiles } from '../../store/repos/package-files';
import { instanceById } from '../../store/repos/instances';
import { packageKeys } from '../../store/content';
import { startPostgres, type TestPostgres } from '../support/postgres';

const MIGRATIONS = path.resolve(__dirname, '../../drizzle');
const PG_MIGRATIONS = path.resolve(__dirname, '../../drizzle-pg');
const FIRST_NEW = '0006_typed_enums_fks';

let dir: string;
beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-migrations-')); });
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A migrations folder as it was before `firstNew`. */
function olderMigrations(folder = MIGRATIONS, firstNew = FIRST_NEW): string {
  const old = path.join(dir, `old-${path.basename(folder)}`);
  fs.cpSync(folder, old, { recursive: true });
  const journalFile = path.join(old, 'meta', '_journal.json');
  const journal = JSON.parse(fs.readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
  const cut = journal.entries.findIndex((e) => e.tag === firstNew);
  expect(cut).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, cut);
  fs.writeFileSync(journalFile, JSON.stringify(journal));
  return old;
}

test('migrating a filled SQLite store to typed enums and foreign keys keeps every row', async () => {
  const dataDir = path.join(dir, 'data');
  fs.mkdirSync(dataDir);
  const file = new Database(path.join(dataDir, 'orchestrator.db'));
  file.pragma('foreign_keys = ON'); // as the older version ran
  migrate(drizzle(file), { migrationsFolder: olderMigrations() });
  const now = new Date().toISOString();
  const pkg = crypto.randomUUID();
  const inst = crypto.randomUUID();
  file.prepare(`INSERT INTO vnf_packages (id, project_id, onboarding_state, operational_state, usage_state, user_defined_data, vnfd_id, created_at)
    VALUES (?, 'p', 'ONBOARDED', 'ENABLED', 'IN_USE', '{}', 'vnfd-1', ?)`).run(pkg, now);
  for (const p of ['Definitions/vnfd.yaml', 'Scripts/install.sh']) file.prepare('INSERT INTO vnf_package_files (package_id, path, content) VALUES (?, ?, ?)').run(pkg, p, Buffer.from(p));
  file.prepare(`INSERT INTO vnf_instances (id, project_id, vnfd_id, vnf_pkg_id, vnf_provider, vnf_product_name, vnf_software_version, vnfd_version,
    instantiation_state, vim_connection_info, metadata, created_at) VALUES (?, 'p', 'vnfd-1', ?, 'a', 'b', '1', '1', 'NOT_INSTANTIATED', '[]', '{}', ?)`).run(inst, pkg, now);
  file.close();

  const store = await openStore({ dataDir });
  try {
    await expectLegacyFilesMoved(store, pkg);
    expect((await instanceById(store, inst))?.vnfPkgId).toBe(pkg);
    // and from now on the references hold: the instance's package cannot go
    const dropped = await store.read(({ db, t }) => db.delete(t.vnfPackages)).then(() => 'deleted', () => 'refused');
    expect(dropped).toBe('refused');
  } finally {
    await store.close();
  }
});

/** A cluster with its two nodegroups, as the store before 0016 held them (raw SQL: the columns of that day). */
function insertCluster(run: (sql: string, args: unknown[]) => unknown, ph: (i: number) => string): { cluster: string } {
  const now = new Date().toISOString();
  const template = crypto.randomUUID();
  const cluster = crypto.randomUUID();
  const list = (n: number, from = 1) => Array.from({ length: n }, (_, i) => ph(from + i)).join(', ');
  run(`INSERT INTO magnum_cluster_templates (id, project_id, user_id, name, attrs, created_at) VALUES (${list(6)})`, [template, 'p', 'u', 't', '{}', now]);
  run(`INSERT INTO magnum_clusters (id, project_id, user_id, name, template_id, status, attrs, operation, operation_id, op_nodegroups, op_params, created_at)
    VALUES (${list(12)})`, [cluster, 'p', 'u', 'c', template, 'CREATE_COMPLETE', '{}', 'cluster-create', 'op-1', '[]', '{}', now]);
  for (const role of ['master', 'worker']) {
    run(`INSERT INTO magnum_nodegroups (uuid, cluster_id, project_id, name, role, is_default, image_id, node_count, min_node_count, labels, node_labels, node_taints, status, members, created_at)
      VALUES (${list(15)})`, [crypto.randomUUID(), cluster, 'p', `default-${role}`, role, 1, 'img', 1, 0, '{}', '{}', '[]', 'CREATE_COMPLETE', '[0]', now]);
  }
  return { cluster };
}

/** After 0016 the store takes any operation name (ops/registry.ts is the list), and the cluster kept its nodegroups. */
async function expectOperationNamesFree(store: Store, cluster: string): Promise<void> {
  await store.read(({ db, t }) => db.update(t.magnumClusters).set({ operation: 'cluster-hibernate' }).where(eq(t.magnumClusters.id, cluster)));
  const groups = await store.read(({ db, t }) => db.select().from(t.magnumNodegroups).where(eq(t.magnumNodegroups.clusterId, cluster)));
  expect(groups.map((g) => g.name).sort()).toEqual(['default-master', 'default-worker']);
  const [row] = await store.read(({ db, t }) => db.select().from(t.magnumClusters).where(eq(t.magnumClusters.id, cluster)));
  expect(row.operation).toBe('cluster-hibernate');
}

test('0016 drops the CHECK on Magnum operation names and keeps every cluster and nodegroup (SQLite rebuilds the table)', async () => {
  const dataDir = path.join(dir, 'data');
  fs.mkdirSync(dataDir);
  const file = new Database(path.join(dataDir, 'orchestrator.db'));
  file.pragma('foreign_keys = ON'); // as the older version ran
  migrate(drizzle(file), { migrationsFolder: olderMigrations(MIGRATIONS, '0016_magnum_operation_names_free') });
  const { cluster } = insertCluster((sql, args) => file.prepare(sql).run(...args), () => '?');
  expect(() => file.prepare('UPDATE magnum_clusters SET operation = ? WHERE id = ?').run('cluster-hibernate', cluster)).toThrow(/CHECK constraint failed/);
  file.close();
  const store = await openStore({ dataDir });
  try {
    await expectOperationNamesFree(store, cluster);
  } finally {
    await store.close();
  }
});

/** The files' bytes are read from the old column, moved into the content store (size and hash indexed), and read from there. */
async function expectLegacyFilesMoved(store: Store, pkg: string): Promise<void> {
  const paths = ['Definitions/vnfd.yaml', 'Scripts/install.sh'];
  expect((await packageFiles(store, pkg, paths)).map((f) => f.content.toString())).toEqual(paths);
  expect(await drainLegacyPackageFiles(store, (id, p, body) => store.content.put(packageKeys.file(id, p), body, { maxBytes: 1e6 }))).toBe(2);
  expect(await drainLegacyPackageFiles(store, () => { throw new Error('nothing is left to move'); })).toBe(0);
  expect((await store.content.getBuffer(packageKeys.file(pkg, 'Scripts/install.sh'), 100))?.toString()).toBe('Scripts/install.sh');
  expect((await packageFiles(store, pkg, paths)).map((f) => f.content.toString())).toEqual(paths);
  const sha = (t: string) => crypto.createHash('sha256').update(t).digest('hex');
  expect(await packageFileIndex(store, pkg)).toEqual(paths.map((p) => ({ path: p, size: p.length, sha256: sha(p) })));
}

describe('on PostgreSQL', () => {
  let pg: TestPostgres;
  beforeAll(async () => { pg = await startPostgres(); });
  afterAll(() => pg?.stop());

  test('package files kept in vnf_package_files before the content store are read, then moved into it', async () => {
    const url = pg.newDatabase();
    const client = new Client({ connectionString: url });
    await client.connect();
    const pkg = crypto.randomUUID();
    try {
      await migratePg(drizzlePg(client), { migrationsFolder: olderMigrations(PG_MIGRATIONS, '0004_content_store') });
      await client.query(`INSERT INTO vnf_packages (id, project_id, onboarding_state, operational_state, usage_state, user_defined_data, vnfd_id, created_at)
        VALUES ($1, 'p', 'ONBOARDED', 'ENABLED', 'NOT_IN_USE', '{}', 'vnfd-1', $2)`, [pkg, new Date().toISOString()]);
      for (const p of ['Definitions/vnfd.yaml', 'Scripts/install.sh']) await client.query('INSERT INTO vnf_package_files (package_id, path, content) VALUES ($1, $2, $3)', [pkg, p, Buffer.from(p)]);
    } finally {
      await client.end();
    }
    const store = await openStore({ dataDir: dir, databaseUrl: url });
    try {
      expect(store.content.kind).toBe('database');
      await expectLegacyFilesMoved(store, pkg);
    } finally {
      await store.close();
    }
  });

  test('0012 drops the CHECK on Magnum operation names', async () => {
    const url = pg.newDatabase();
    const client = new Client({ connectionString: url });
    await client.connect();
    let cluster: string;
    try {
      await migratePg(drizzlePg(client), { migrationsFolder: olderMigrations(PG_MIGRATIONS, '0012_magnum_operation_names_free') });
      const run: Array<Promise<unknown>> = [];
      ({ cluster } = insertCluster((sql, args) => run.push(client.query(sql, args)), (i) => `$${i}`));
      await Promise.all(run);
      await expect(client.query('UPDATE magnum_clusters SET operation = $1 WHERE id = $2', ['cluster-hibernate', cluster])).rejects.toThrow(/magnum_clusters_operation/);
    } finally {
      await client.end();
    }
    const store = await openStore({ dataDir: dir, databaseUrl: url });
    try {
      await expectOperationNamesFree(store, cluster);
    } finally {
      await store.close();
    }
  });
});
