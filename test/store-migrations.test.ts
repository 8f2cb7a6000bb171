/**
 * An embedded store written by an older version is migrated without losing
 * rows: SQLite rebuilds a table to add constraints (copy, drop, rename), and
 * with foreign keys enforced the drop of vnf_packages would delete its
 * package files (ON DELETE CASCADE). The database is made with the
 * migrations before 0006, filled, then opened by today's store.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { openStore } from '../common/db';
import { packageFiles } from '../common/db/repos/package-files';
import { instanceById } from '../common/db/repos/instances';

const MIGRATIONS = path.resolve(__dirname, '../drizzle');
const FIRST_NEW = '0006_typed_enums_fks';

let dir: string;
beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-migrations-')); });
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** drizzle/ as it was before FIRST_NEW. */
function olderMigrations(): string {
  const old = path.join(dir, 'old-migrations');
  fs.cpSync(MIGRATIONS, old, { recursive: true });
  const journalFile = path.join(old, 'meta', '_journal.json');
  const journal = JSON.parse(fs.readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
  const cut = journal.entries.findIndex((e) => e.tag === FIRST_NEW);
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
    expect((await packageFiles(store, pkg, ['Definitions/vnfd.yaml', 'Scripts/install.sh'])).map((f) => f.content.toString())).toEqual(['Definitions/vnfd.yaml', 'Scripts/install.sh']);
    expect((await instanceById(store, inst))?.vnfPkgId).toBe(pkg);
    // and from now on the references hold: the instance's package cannot go
    const dropped = await store.read(({ db, t }) => db.delete(t.vnfPackages)).then(() => 'deleted', () => 'refused');
    expect(dropped).toBe('refused');
  } finally {
    await store.close();
  }
});
