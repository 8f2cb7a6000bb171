/**
 * SECRET_KEY rotation (security review M7): with the old key in
 * SECRET_KEY_PREVIOUS, sealed values still open, the API's start re-seals
 * every sealed column under the new key, and afterwards the old key can go.
 * Real stores with the product's migrations: SQLite, and PostgreSQL.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore, type Store } from '../../store';
import { resealUnderCurrentKey } from '../../store/reseal';
import { createInstance, instanceById } from '../../store/repos/instances';
import { registerVim, vimById } from '../../store/repos/vims';
import { createPackage } from '../../store/repos/packages';
import { clusterById, clusterPki, createCluster } from '../../store/repos/clusters';
import { SecretBox } from '../../common/secrets';
import { createSubscription, subscriptionById } from '../../store/repos/subscriptions';
import { startPostgres, type TestPostgres } from '../support/postgres';

const key = () => crypto.randomBytes(32).toString('base64');
let pg: TestPostgres;
beforeAll(async () => { pg = await startPostgres(); });
afterAll(() => pg?.stop());

describe.each(['sqlite', 'postgres'] as const)('on %s', (dialect) => {
  let dir: string;
  let db: Store;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rotation-'));
    db = await openStore({ dataDir: dir, databaseUrl: dialect === 'postgres' ? pg.newDatabase() : undefined });
  });
  afterEach(async () => {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function rows(box: SecretBox) {
    const now = new Date().toISOString();
    await registerVim(db, { id: 'v1', projectId: '', name: 'v', authUrl: 'http://127.0.0.1:5000/v3', username: 'u', passwordSealed: box.seal('vim-pass'), project: 'p', createdAt: now });
    await createPackage(db, { id: 'p', projectId: '', userDefinedData: {} });
    await createInstance(db, {
      id: 'i1', vnfdId: 'd', vnfPkgId: 'p', vnfProvider: 'x', vnfProductName: 'x', vnfSoftwareVersion: '1', vnfdVersion: '1',
      instantiationState: 'INSTANTIATED', vimConnectionInfo: [], metadata: {}, createdAt: now,
      instantiateParamsSealed: box.sealJson({ additionalParams: { ssh_password: 'node-pass' } }),
    });
    await createCluster(db, {
      id: 'c1', projectId: '', kind: 'vnf', name: 'k', settings: { kubeVersion: '1.37.2', podCidr: '10.244.0.0/16', serviceCidr: '10.96.0.0/12', registries: [] },
      secretsSealed: box.sealJson({ logins: { master: { username: 'u', password: 'cluster-pass' } } }), createdAt: now,
    }, { certs: { kubernetesCa: 'c', etcdCa: 'c', frontProxyCa: 'c', admin: 'c', serviceAccountPublicKey: 'c' }, keysSealed: box.sealJson({ kubernetesCa: 'ca-key' }) });
    await createSubscription(db, {
      id: 's1', projectId: '', apiVersion: 'v1', callbackUri: 'http://127.0.0.1:1/n', authentication: { authType: ['BASIC'] },
      authenticationSealed: box.sealJson({ authType: ['BASIC'], paramsBasic: { userName: 'u', password: 'callback-pass' } }), createdAt: now,
    });
  }
  const sealedVim = async () => (await vimById(db, 'v1'))!.passwordSealed;
  const sealedCluster = async () => (await clusterById(db, 'c1'))!.secretsSealed;
  const sealedKeys = async () => (await clusterPki(db, 'c1', 1))!.keysSealed;
  const sealedInst = async () => (await instanceById(db, 'i1'))!.instantiateParamsSealed!;
  const sealedSubscription = async () => (await subscriptionById(db, 's1'))!.authenticationSealed!;

  test('the new key with the old one as SECRET_KEY_PREVIOUS: everything opens, is re-sealed under the new key, and then opens without the old one', async () => {
    const [oldKey, newKey] = [key(), key()];
    await rows(SecretBox.fromEnvOrFile(dir, { SECRET_KEY: oldKey }));
    const sealedBefore = await sealedVim();
    expect(() => SecretBox.fromEnvOrFile(dir, { SECRET_KEY: newKey }).open(sealedBefore)).toThrow();

    const rotating = SecretBox.fromEnvOrFile(dir, { SECRET_KEY: newKey, SECRET_KEY_PREVIOUS: `${key()}, ${oldKey}` });
    expect(rotating.open(sealedBefore)).toBe('vim-pass');
    expect(await resealUnderCurrentKey(db, rotating)).toBe(5);
    expect(await resealUnderCurrentKey(db, rotating)).toBe(0); // idempotent

    const newOnly = SecretBox.fromEnvOrFile(dir, { SECRET_KEY: newKey });
    expect(newOnly.open(await sealedVim())).toBe('vim-pass');
    expect(newOnly.openJson(await sealedInst())).toEqual({ additionalParams: { ssh_password: 'node-pass' } });
    expect(newOnly.openJson(await sealedCluster())).toEqual({ logins: { master: { username: 'u', password: 'cluster-pass' } } });
    expect(newOnly.openJson(await sealedKeys())).toEqual({ kubernetesCa: 'ca-key' });
    expect(newOnly.openJson(await sealedSubscription())).toMatchObject({ paramsBasic: { password: 'callback-pass' } });
    const sealedAfter = await sealedVim();
    expect(() => SecretBox.fromEnvOrFile(dir, { SECRET_KEY: oldKey }).open(sealedAfter)).toThrow();
  });

  test('without SECRET_KEY_PREVIOUS nothing is touched; a malformed previous key is refused at start', async () => {
    const k = key();
    await rows(SecretBox.fromEnvOrFile(dir, { SECRET_KEY: k }));
    const before = await sealedVim();
    expect(await resealUnderCurrentKey(db, SecretBox.fromEnvOrFile(dir, { SECRET_KEY: k }))).toBe(0);
    expect(await sealedVim()).toBe(before);
    expect(() => SecretBox.fromEnvOrFile(dir, { SECRET_KEY: k, SECRET_KEY_PREVIOUS: 'c2hvcnQ=' })).toThrow(/SECRET_KEY_PREVIOUS/);
  });
});
