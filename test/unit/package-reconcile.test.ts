/**
 * Package bytes of older versions move into the content store at API start
 * (api/package-reconcile.ts moveOlderContent), into either store: the zip
 * BLOBs of the pre-0004 table (read out 1 MiB at a time, then the table is
 * dropped) and the zips of the old directory layout (PACKAGE_STORE_DIR/<id>.zip;
 * one of a deleted package is only removed).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { moveOlderContent } from '../../api/package-reconcile';
import { openStore, type Store } from '../../store';
import { createPackage } from '../../store/repos/packages';
import { packageKeys } from '../../store/content';

describe.each(['directory', 'database'] as const)('older package content into the %s content store (SQLite)', (kind) => {
  let dir: string;
  let db: Store;
  const storeDir = () => path.join(dir, 'packages');
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reconcile-'));
    db = await openStore({ dataDir: dir, packageStore: kind, packageStoreDir: storeDir() });
  });
  afterEach(async () => {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const newPackage = async () => {
    const id = crypto.randomUUID();
    await createPackage(db, { id, projectId: 'p', userDefinedData: {} });
    return id;
  };

  it('moves the BLOBs of legacy_package_contents and the old layout\'s zip files', async () => {
    const [blobbed, filed] = [await newPackage(), await newPackage()];
    const big = crypto.randomBytes(2.5 * 1024 * 1024);
    // the table migration 0004 left (a fresh store has it too, empty, until the API's first start drops it)
    await db.read(async ({ db: q }) => { q.run(sql`INSERT INTO legacy_package_contents (package_id, zip) VALUES (${blobbed}, ${big})`); });
    const small = Buffer.from('PK old layout');
    const gone = crypto.randomUUID(); // a zip whose package was deleted
    fs.mkdirSync(storeDir(), { recursive: true });
    fs.writeFileSync(path.join(storeDir(), `${filed}.zip`), small);
    fs.writeFileSync(path.join(storeDir(), `${gone}.zip`), small);

    expect(await moveOlderContent(db, storeDir())).toEqual({ zips: 1, files: 0, oldLayout: 2 });
    expect((await db.content.getBuffer(packageKeys.zip(blobbed), big.length))?.equals(big)).toBe(true);
    expect((await db.content.getBuffer(packageKeys.zip(filed), small.length))?.equals(small)).toBe(true);
    expect(await db.content.size(packageKeys.zip(gone))).toBeUndefined();
    expect(fs.readdirSync(storeDir()).filter((n) => n.endsWith('.zip'))).toEqual([]);
    const table = await db.read(async ({ db: q }) => q.get(sql`SELECT 1 FROM sqlite_master WHERE name = 'legacy_package_contents'`));
    expect(table).toBeUndefined();
    expect(await moveOlderContent(db, storeDir())).toEqual({ zips: 0, files: 0, oldLayout: 0 });
  });
});
