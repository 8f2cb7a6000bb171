/**
 * Onboarding as the worker runs it (the onboardPackage activity, no
 * Temporal) through each content store: a directory, the database on
 * SQLite, the database on a real PostgreSQL. A product sample and a Tacker
 * sample with real TOSCA.meta hashes give the same index (paths, sizes,
 * SHA-256) and the same bytes as the files they were zipped from; a failed
 * onboarding leaves none of its content behind.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { loadConfig } from '../../common/config';
import { openStore, type Store } from '../../store';
import { packageFile, packageFileIndex } from '../../store/repos/package-files';
import { claimUpload, createPackage, packageById } from '../../store/repos/packages';
import { createLogger } from '../../common/log';
import { SecretBox } from '../../common/secrets';
import { packageActivities } from '../../ops/vnfpkgm/onboard/activities';
import { readFolderFiles } from '../../samples/build';
import { packageKeys } from '../../store/content';
import { startPostgres, type TestPostgres } from '../support/postgres';
import { sha256, tackerSampleFiles, zipFiles, type PackageFiles } from '../support/vnfpkg-fixtures';

const SAMPLES: [string, () => PackageFiles][] = [
  ['two_vdu_vnf', () => readFolderFiles(path.resolve(__dirname, '../../samples/two_vdu_vnf'))],
  ['kubernetes_vnf_package (Tacker)', () => tackerSampleFiles('kubernetes_vnf_package')],
];

let pg: TestPostgres;
beforeAll(async () => { pg = await startPostgres(); });
afterAll(() => pg?.stop());

describe.each([['directory', 'sqlite'], ['database', 'sqlite'], ['database', 'postgres']] as const)('onboarding into the %s content store (%s)', (kind, dialect) => {
  let dir: string;
  let db: Store;
  let activities: ReturnType<typeof packageActivities>;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onboard-'));
    db = await openStore({ dataDir: dir, databaseUrl: dialect === 'postgres' ? pg.newDatabase() : undefined, packageStore: kind, packageStoreDir: path.join(dir, 'packages') });
    activities = packageActivities({ db, cfg: loadConfig(), log: createLogger('test', 'silent'), box: new SecretBox(crypto.randomBytes(32)) });
  });
  afterEach(async () => {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A package uploaded as the API does it (zip into the content store, CREATED -> PROCESSING); its id. */
  async function uploaded(zip: Buffer): Promise<string> {
    const id = crypto.randomUUID();
    await createPackage(db, { id, projectId: 'p', userDefinedData: {} });
    await db.content.put(packageKeys.zip(id), Readable.from([zip]), { maxBytes: zip.length });
    expect(await claimUpload(db, id)).toBe(true);
    return id;
  }

  it.each(SAMPLES)('%s: the index and the bytes are those of the files zipped', async (_name, filesOf) => {
    const files = filesOf();
    const zip = zipFiles(files);
    const id = await uploaded(zip);
    await activities.onboardPackage({ packageId: id });
    const expected = Object.keys(files).sort().map((p) => ({ path: p, size: files[p].length, sha256: sha256(files[p]) }));
    expect(await packageFileIndex(db, id)).toEqual(expected);
    for (const p of Object.keys(files)) expect([p, (await packageFile(db, id, p))?.equals(files[p])]).toEqual([p, true]);
    const row = await packageById(db, id);
    expect(row).toMatchObject({ onboardingState: 'ONBOARDED', checksum: { algorithm: 'SHA-256', hash: sha256(zip) } });
    for (const a of row!.additionalArtifacts ?? []) {
      const { artifactPath, checksum } = a as { artifactPath: string; checksum: { hash: string } };
      expect([artifactPath, checksum.hash]).toEqual([artifactPath, sha256(files[artifactPath])]);
    }
    expect((await db.content.getBuffer(packageKeys.zip(id), zip.length))?.equals(zip)).toBe(true);
  });

  it('a failed onboarding leaves nothing of the package in the content store', async () => {
    const files = tackerSampleFiles('kubernetes_vnf_package');
    files['Scripts/install_helm.sh'] = Buffer.from('tampered'); // its TOSCA.meta hash no longer matches, after every file was extracted
    const id = await uploaded(zipFiles(files));
    await expect(activities.onboardPackage({ packageId: id })).rejects.toThrow(/hash mismatch for "Scripts\/install_helm.sh"/);
    expect(await db.content.size(packageKeys.file(id, 'TOSCA-Metadata/TOSCA.meta'))).toBe(files['TOSCA-Metadata/TOSCA.meta'].length);
    await activities.failOnboarding({ packageId: id, reason: 'hash mismatch' });
    expect(await db.content.size(packageKeys.zip(id))).toBeUndefined();
    for (const p of Object.keys(files)) expect(await db.content.size(packageKeys.file(id, p))).toBeUndefined();
    expect(await packageFileIndex(db, id)).toEqual([]);
    expect((await packageById(db, id))?.onboardingState).toBe('CREATED');
  });
});
