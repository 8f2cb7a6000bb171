/**
 * SECRET_KEY rotation (security review M7): with the old key in
 * SECRET_KEY_PREVIOUS, sealed values still open, the API's start re-seals
 * every sealed column under the new key, and afterwards the old key can go.
 * A real SQLite database with the product's migrations.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { openDb, type Db } from '../common/db';
import { resealUnderCurrentKey } from '../common/db/reseal';
import { vims, vnfInstances } from '../common/db/schema';
import { SecretBox } from '../common/secrets';

const key = () => crypto.randomBytes(32).toString('base64');
let dir: string;
let db: Db;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rotation-'));
  db = openDb(dir);
});
afterEach(() => {
  db.$client.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function rows(box: SecretBox) {
  const now = new Date().toISOString();
  db.insert(vims).values({ id: 'v1', name: 'v', authUrl: 'http://127.0.0.1:5000/v3', username: 'u', passwordSealed: box.seal('vim-pass'), project: 'p', createdAt: now }).run();
  db.insert(vnfInstances).values({
    id: 'i1', vnfdId: 'd', vnfPkgId: 'p', vnfProvider: 'x', vnfProductName: 'x', vnfSoftwareVersion: '1', vnfdVersion: '1',
    instantiationState: 'INSTANTIATED', vimConnectionInfo: [], metadata: {}, createdAt: now,
    instantiateParamsSealed: box.sealJson({ additionalParams: { ssh_password: 'node-pass' } }),
  }).run();
}
const sealedVim = () => db.select().from(vims).where(eq(vims.id, 'v1')).get()!.passwordSealed;
const sealedInst = () => db.select().from(vnfInstances).where(eq(vnfInstances.id, 'i1')).get()!.instantiateParamsSealed!;

test('the new key with the old one as SECRET_KEY_PREVIOUS: everything opens, is re-sealed under the new key, and then opens without the old one', () => {
  const [oldKey, newKey] = [key(), key()];
  rows(SecretBox.fromEnvOrFile(dir, { SECRET_KEY: oldKey }));
  expect(() => SecretBox.fromEnvOrFile(dir, { SECRET_KEY: newKey }).open(sealedVim())).toThrow();

  const rotating = SecretBox.fromEnvOrFile(dir, { SECRET_KEY: newKey, SECRET_KEY_PREVIOUS: `${key()}, ${oldKey}` });
  expect(rotating.open(sealedVim())).toBe('vim-pass');
  expect(resealUnderCurrentKey(db, rotating)).toBe(2);
  expect(resealUnderCurrentKey(db, rotating)).toBe(0); // idempotent

  const newOnly = SecretBox.fromEnvOrFile(dir, { SECRET_KEY: newKey });
  expect(newOnly.open(sealedVim())).toBe('vim-pass');
  expect(newOnly.openJson(sealedInst())).toEqual({ additionalParams: { ssh_password: 'node-pass' } });
  expect(() => SecretBox.fromEnvOrFile(dir, { SECRET_KEY: oldKey }).open(sealedVim())).toThrow();
});

test('without SECRET_KEY_PREVIOUS nothing is touched; a malformed previous key is refused at start', () => {
  const k = key();
  rows(SecretBox.fromEnvOrFile(dir, { SECRET_KEY: k }));
  const before = sealedVim();
  expect(resealUnderCurrentKey(db, SecretBox.fromEnvOrFile(dir, { SECRET_KEY: k }))).toBe(0);
  expect(sealedVim()).toBe(before);
  expect(() => SecretBox.fromEnvOrFile(dir, { SECRET_KEY: k, SECRET_KEY_PREVIOUS: 'c2hvcnQ=' })).toThrow(/SECRET_KEY_PREVIOUS/);
});
