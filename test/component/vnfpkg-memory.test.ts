/**
 * Onboarding does not read a package into memory: a package with one
 * artifact of 300 MB of random bytes (incompressible, stored), listed in
 * TOSCA.meta with a SHA-512, is onboarded in a process of its own
 * (test/support/onboard-child.ts) through each content store, and that
 * process's resident memory grows by far less than the artifact (the bound
 * is a third of it; streaming keeps it to tens of megabytes: buffers, and
 * garbage the collector has not taken yet). Both the sampled peak and the
 * kernel's peak (maxRSS, which also sees a synchronous read that blocks the
 * sampler) are checked. The onboarding before the content store, which read
 * the zip whole and inflated every entry into memory, peaked 1.24 GB above
 * its start on this package.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { readFolderFiles } from '../../samples/build';
import { startPostgres, type TestPostgres } from '../support/postgres';
import { writeStoredZip } from '../support/stored-zip';

const ARTIFACT_BYTES = 300 * 1024 * 1024;
const BOUND = ARTIFACT_BYTES / 3;
const ARTIFACT = 'Files/big-artifact.bin';
const CHILD = path.resolve(__dirname, '../support/onboard-child.ts');
const MB = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

let dir: string;
let zip: string;
let artifactSha256: string;
let pg: TestPostgres;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onboard-memory-'));
  pg = await startPostgres();
  // The artifact on disk first (its hashes and CRC are needed before the zip is written), 1 MiB at a time.
  const artifact = path.join(dir, 'artifact.bin');
  const out = fs.openSync(artifact, 'w');
  const sha512 = crypto.createHash('sha512');
  const sha256 = crypto.createHash('sha256');
  let crc = 0;
  for (let i = 0; i < ARTIFACT_BYTES / (1024 * 1024); i++) {
    const piece = crypto.randomBytes(1024 * 1024);
    sha512.update(piece);
    sha256.update(piece);
    crc = zlib.crc32(piece, crc);
    fs.writeSync(out, piece);
  }
  fs.closeSync(out);
  artifactSha256 = sha256.digest('hex');
  const files = readFolderFiles(path.resolve(__dirname, '../../samples/two_vdu_vnf'));
  const meta = 'TOSCA-Metadata/TOSCA.meta';
  files[meta] = Buffer.from(`${files[meta].toString('utf8').trimEnd()}\n\nName: ${ARTIFACT}\nContent-Type: application/octet-stream\nAlgorithm: SHA-512\nHash: ${sha512.digest('hex')}\n`);
  zip = path.join(dir, 'package.zip');
  await writeStoredZip(zip, [
    ...Object.entries(files).map(([name, data]) => ({ name, data })),
    { name: ARTIFACT, file: artifact, size: ARTIFACT_BYTES, crc32: crc },
  ]);
  fs.rmSync(artifact);
}, 300_000);

afterAll(() => {
  pg?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test.each([['directory', 'sqlite'], ['database', 'sqlite'], ['database', 'postgres']] as const)(
  'onboarding a 300 MB artifact into the %s content store (%s) grows the worker by less than a third of it',
  async (kind, dialect) => {
    const dataDir = fs.mkdtempSync(path.join(dir, `${kind}-${dialect}-`));
    const args = ['--expose-gc', '--import', 'tsx', CHILD, zip, kind, dataDir, ...(dialect === 'postgres' ? [pg.newDatabase()] : [])];
    const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: path.resolve(__dirname, '../..'), maxBuffer: 16 * 1024 * 1024, env: { ...process.env, LOG_LEVEL: 'silent' } });
    const r = JSON.parse(stdout.trim().split('\n').pop()!) as { before: number; peak: number; maxRss: number; ms: number; files: { path: string; size: number; sha256: string }[] };
    const growth = r.peak - r.before;
    console.log(`${kind} (${dialect}): RSS ${MB(r.before)} before onboarding, peak ${MB(r.peak)} (+${MB(growth)}; the process's lifetime peak ${MB(r.maxRss)}), ${r.ms} ms`);
    expect(r.files.find((f) => f.path === ARTIFACT)).toEqual({ path: ARTIFACT, size: ARTIFACT_BYTES, sha256: artifactSha256 });
    expect(growth).toBeLessThan(BOUND);
    expect(r.maxRss - r.before).toBeLessThan(BOUND);
    fs.rmSync(dataDir, { recursive: true, force: true });
  },
  600_000,
);
