/**
 * The SSH tests' login user leaves no account with a known password on the
 * machine (security review, Low: "Test script creates a known-password sudo
 * user"): a throw-away user with a random password exists only while a test
 * file's sshd runs; leftovers of a killed run and the old fixed-password
 * `nfvtest` account are removed at the next start. Needs root, no harness.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectSsh, SshAuthError } from '../../ssh';
import {
  LEGACY_TEST_USER, removeLeftoverTestUsers, removeTestUser, shadowPassword, SSH_TEST_PASSWORD, SSH_TEST_USER,
  startSshd, TEST_USER_MARKER, testUserTraces, TestSshd,
} from '../support/sshd';

jest.setTimeout(60_000);

const LEGACY_PASSWORD = 'nfvtest-pass-123';
const gone = { passwd: false, shadow: false, group: false, sudoers: false, home: false };
const made: string[] = [];
let tmp: string;

/** A locked account (no password) with a comment and optionally the sudoers drop-in the old script wrote. */
function fakeAccount(user: string, comment: string, dropIn?: string): void {
  execFileSync('useradd', ['--create-home', '--user-group', '--comment', comment, user]);
  made.push(user);
  if (dropIn) fs.writeFileSync(`/etc/sudoers.d/${user}`, dropIn, { mode: 0o440 });
}

const getent = (user: string) => {
  try {
    return execFileSync('getent', ['passwd', user]).toString();
  } catch {
    return undefined;
  }
};

/** Whether a password matches a crypt(3) hash from /etc/shadow (libcrypt through Python's crypt module). */
const verifies = (pw: string, hash: string) => execFileSync('python3', ['-W', 'ignore', '-c',
  'import crypt,sys; print(crypt.crypt(sys.argv[1], sys.argv[2]) == sys.argv[2])', pw, hash]).toString().trim() === 'True';

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nfv-ssh-user-'));
});

afterAll(() => {
  for (const u of made) { try { removeTestUser(u); } catch { /* reported by the tests */ } }
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  expect(testUserTraces(SSH_TEST_USER)).toEqual(gone);
  expect(getent(SSH_TEST_USER)).toBeUndefined();
});

test('the user exists only while an sshd runs, logs in with its random password, and is gone after the last stop', async () => {
  expect(testUserTraces(SSH_TEST_USER)).toEqual(gone);
  expect(SSH_TEST_PASSWORD).toMatch(/^Pw[0-9a-f]{36}$/); // 144 random bits
  const a = await startSshd();
  let b: TestSshd | undefined;
  try {
    expect(testUserTraces(SSH_TEST_USER)).toEqual({ passwd: true, shadow: true, group: true, sudoers: true, home: true });
    expect(getent(SSH_TEST_USER)).toContain(`${TEST_USER_MARKER} pid=${process.pid} start=`);
    const hash = shadowPassword(SSH_TEST_USER)!;
    expect(hash).toMatch(/^\$[0-9a-z]+\$/); // a crypt hash: unlocked, with the random password
    expect([verifies(SSH_TEST_PASSWORD, hash), verifies(LEGACY_PASSWORD, hash)]).toEqual([true, false]);
    const shadow = fs.readFileSync('/etc/shadow', 'utf8').split('\n').find((l) => l.startsWith(`${SSH_TEST_USER}:`))!.split(':');
    expect(Number(shadow[7])).toBeGreaterThan(Date.now() / 86_400_000); // expires on its own (days since the epoch)
    expect(fs.statSync(`/etc/sudoers.d/${SSH_TEST_USER}`).mode & 0o777).toBe(0o440);

    const s = await connectSsh({ host: a.host, port: a.port, username: SSH_TEST_USER, password: SSH_TEST_PASSWORD }, { deadlineMs: 5000 });
    expect((await s.run('id -u', { sudo: true })).stdout).toBe('0\n');
    await s.close();
    await expect(connectSsh({ host: a.host, port: a.port, username: SSH_TEST_USER, password: LEGACY_PASSWORD }, { deadlineMs: 5000 }))
      .rejects.toBeInstanceOf(SshAuthError);

    // A second sshd shares the user; it stays until the last one stops.
    b = await startSshd();
    await a.stop();
    expect(testUserTraces(SSH_TEST_USER).passwd).toBe(true);
  } finally {
    await a.stop();
    await b?.stop();
  }
  expect(testUserTraces(SSH_TEST_USER)).toEqual(gone);
  expect(getent(SSH_TEST_USER)).toBeUndefined();
});

test('at start, leftovers of killed runs and the old fixed-password nfvtest account are removed; a running one is kept', async () => {
  const suffix = Math.random().toString(16).slice(2, 8);
  const dead = `nfvt-dead${suffix}`;
  const live = `nfvt-live${suffix}`;
  // A run that died: its comment names this pid with another start time, i.e. a process that is gone.
  fakeAccount(dead, `${TEST_USER_MARKER} pid=${process.pid} start=1`, `${dead} ALL=(ALL:ALL) ALL\n`);
  // A run still going (this process, its real start time) is someone else's to clean.
  const start = fs.readFileSync(`/proc/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ')[19];
  fakeAccount(live, `${TEST_USER_MARKER} pid=${process.pid} start=${start}`);
  // What scripts/install-test-deps.sh used to leave (made locked here, never with the known password).
  const legacyExisted = !!getent(LEGACY_TEST_USER);
  if (!legacyExisted) fakeAccount(LEGACY_TEST_USER, '', `${LEGACY_TEST_USER} ALL=(ALL:ALL) ALL\n`);
  expect(fs.existsSync(`/etc/sudoers.d/${LEGACY_TEST_USER}`)).toBe(true);

  const sshd = await startSshd();
  try {
    expect(testUserTraces(dead)).toEqual(gone);
    expect(testUserTraces(LEGACY_TEST_USER)).toEqual(gone);
    expect(testUserTraces(live).passwd).toBe(true);
  } finally {
    await sshd.stop();
    removeTestUser(live);
  }
  expect(testUserTraces(live)).toEqual(gone);
});

test('a run killed halfway leaves no known password, and the next start removes its user', async () => {
  // Another process starts an sshd (creating its own user), then is SIGKILLed before any cleanup.
  const script = path.join(tmp, 'killed-run.ts');
  fs.writeFileSync(script, [
    `import { startSshd, SSH_TEST_USER } from ${JSON.stringify(path.resolve(__dirname, '../support/sshd'))};`,
    'startSshd().then((d) => { console.log(JSON.stringify({ user: SSH_TEST_USER, sshdPid: d.pid, dir: d.dir })); setInterval(() => undefined, 1000); });',
  ].join('\n'));
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: path.resolve(__dirname, '../..'), stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => { out += d.toString(); if (out.includes('\n')) resolve(out.split('\n')[0]); });
    child.once('exit', (code) => reject(new Error(`killed-run.ts exited (${code}) early: ${out}`)));
  });
  const { user, sshdPid, dir } = JSON.parse(line) as { user: string; sshdPid: number; dir: string };
  made.push(user);
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
  try { process.kill(sshdPid, 'SIGKILL'); } catch { /* gone */ }
  fs.rmSync(dir, { recursive: true, force: true }); // the dead run's sshd config and host key

  // Left behind: an account whose password is a hash of a random value only the dead process knew.
  expect(user).not.toBe(SSH_TEST_USER);
  expect(testUserTraces(user).passwd).toBe(true);
  const hash = shadowPassword(user)!;
  expect(hash).toMatch(/^\$[0-9a-z]+\$/);
  expect(verifies(LEGACY_PASSWORD, hash)).toBe(false);
  expect(verifies(SSH_TEST_PASSWORD, hash)).toBe(false);

  expect(removeLeftoverTestUsers()).toContain(user);
  expect(testUserTraces(user)).toEqual(gone);
});
