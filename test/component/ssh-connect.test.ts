/** SSH layer against a real OpenSSH sshd on loopback: logins, the retry loop,
 *  host key pinning and secret redaction in errors and logs. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  connectSsh, InMemoryHostKeyStore, SshAuthError, SshConnectError, SshError, SshHostKeyMismatchError, SshSession,
} from '../../ssh';
import { freePort } from '../harness/ports';
import { makeKeyPair, SSH_TEST_PASSWORD, SSH_TEST_USER, startSshd, testUserTraces, TestSshd } from '../support/sshd';

jest.setTimeout(30_000);

let sshd: TestSshd;
let keyDir: string;
const logs: string[] = [];
const errors: unknown[] = [];
const log = (m: string) => logs.push(m);
const sessions: SshSession[] = [];
const others: TestSshd[] = [];

async function catching<T>(p: Promise<T>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    errors.push(e);
    return e;
  }
  throw new Error('expected a rejection');
}

beforeAll(async () => {
  sshd = await startSshd();
  keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nfv-sshkey-'));
}, 600_000);

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

afterAll(async () => {
  await sshd?.stop();
  await Promise.all(others.map((s) => s.stop()));
  if (keyDir) fs.rmSync(keyDir, { recursive: true, force: true });
  // The throw-away login user (random password) went with the last sshd: no account, group, home or sudoers drop-in.
  expect(testUserTraces(SSH_TEST_USER)).toEqual({ passwd: false, shadow: false, group: false, sudoers: false, home: false });
});

const target = (over: Record<string, unknown> = {}) => ({
  host: sshd.host, port: sshd.port, username: SSH_TEST_USER, password: SSH_TEST_PASSWORD, ...over,
});

test('password login runs a command', async () => {
  const s = await connectSsh(target(), { log, deadlineMs: 5000 });
  sessions.push(s);
  expect(s.hostKeyFingerprint).toBe(sshd.hostKeyFingerprint);
  const r = await s.run('id -un');
  expect(r).toEqual({ code: 0, stdout: `${SSH_TEST_USER}\n`, stderr: '' });
});

test('private key login (OpenSSH format key made by ssh-keygen)', async () => {
  const { privateKey, publicKey } = makeKeyPair(keyDir);
  sshd.authorizeKey(publicKey);
  const s = await connectSsh({ host: sshd.host, port: sshd.port, username: SSH_TEST_USER, privateKey }, { log, deadlineMs: 5000 });
  sessions.push(s);
  expect((await s.run('echo key-ok')).stdout).toBe('key-ok\n');
});

test('an unknown private key is an authentication error', async () => {
  const { privateKey } = makeKeyPair(keyDir, 'not_authorized');
  const e = await catching(connectSsh({ host: sshd.host, port: sshd.port, username: SSH_TEST_USER, privateKey }, { deadlineMs: 5000 }));
  expect(e).toBeInstanceOf(SshAuthError);
  expect((e as Error).message).not.toContain('PRIVATE KEY');
});

test('a wrong password fails at once with a clear error, not retried', async () => {
  const wrong = 'wr0ng-Secret-xyz';
  const started = Date.now();
  const attempts: string[] = [];
  const e = await catching(connectSsh(target({ password: wrong }), { deadlineMs: 20_000, log: (m) => { attempts.push(m); log(m); } }));
  expect(e).toBeInstanceOf(SshAuthError);
  expect((e as Error).message).toMatch(new RegExp(`authentication failed for ${SSH_TEST_USER}@127\\.0\\.0\\.1:${sshd.port}`));
  expect((e as Error).message).not.toContain(wrong);
  expect(attempts.filter((m) => m.includes('retrying'))).toEqual([]);
  expect(Date.now() - started).toBeLessThan(10_000);
});

test('the retry loop connects to an sshd that starts ~2 s later', async () => {
  const port = await freePort();
  const late = new Promise<TestSshd>((resolve, reject) => {
    setTimeout(() => startSshd({ port }).then((d) => { others.push(d); resolve(d); }, reject), 2000);
  });
  const lines: string[] = [];
  const started = Date.now();
  const s = await connectSsh(target({ port }), { deadlineMs: 20_000, log: (m) => { lines.push(m); log(m); } });
  sessions.push(s);
  expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
  expect(lines.some((m) => /attempt \d+ failed \(.*ECONNREFUSED.*\); retrying/.test(m))).toBe(true);
  expect((await s.run('echo late')).stdout).toBe('late\n');
  expect(s.hostKeyFingerprint).toBe((await late).hostKeyFingerprint);
});

test('nothing listening: a clear error after the deadline', async () => {
  const port = await freePort();
  const started = Date.now();
  const e = await catching(connectSsh(target({ port }), { deadlineMs: 1500 }));
  const took = Date.now() - started;
  expect(e).toBeInstanceOf(SshConnectError);
  expect((e as Error).message).toMatch(new RegExp(`could not connect to ${SSH_TEST_USER}@127\\.0\\.0\\.1:${port} within 1500 ms \\(\\d+ attempts\\); last error: .*ECONNREFUSED`));
  expect((e as SshConnectError).attempts).toBeGreaterThan(1);
  expect(took).toBeGreaterThanOrEqual(1400);
  expect(took).toBeLessThan(4000);
});

test('a server that accepts TCP but never speaks SSH is retried, then times out', async () => {
  const net = await import('node:net');
  const sockets: import('node:net').Socket[] = [];
  const server = net.createServer((c) => { sockets.push(c); c.write('garbage without a banner\r\n'); c.end(); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as import('node:net').AddressInfo).port;
  try {
    const e = await catching(connectSsh(target({ port }), { deadlineMs: 1500 }));
    expect(e).toBeInstanceOf(SshConnectError);
    expect((e as SshConnectError).attempts).toBeGreaterThan(1);
  } finally {
    sockets.forEach((c) => c.destroy());
    await new Promise((r) => server.close(r));
  }
});

test('host keys: first use pins, another key for the same VNFC is refused, forget() re-learns', async () => {
  const store = new InMemoryHostKeyStore();
  const s1 = await connectSsh(target({ hostKeyId: 'VDU1-0' }), { hostKeys: store, log, deadlineMs: 5000 });
  sessions.push(s1);
  expect(store.get('VDU1-0')).toBe(sshd.hostKeyFingerprint);
  const s2 = await connectSsh(target({ hostKeyId: 'VDU1-0' }), { hostKeys: store, deadlineMs: 5000 });
  sessions.push(s2);

  // Same id, a different VM (a different sshd with its own host key).
  const other = await startSshd();
  others.push(other);
  const started = Date.now();
  const e = await catching(connectSsh(target({ port: other.port, hostKeyId: 'VDU1-0' }), { hostKeys: store, deadlineMs: 20_000 }));
  expect(e).toBeInstanceOf(SshHostKeyMismatchError);
  expect(Date.now() - started).toBeLessThan(10_000); // not retried
  const msg = (e as Error).message;
  expect(msg).toContain(`127.0.0.1:${other.port}`);
  expect(msg).toContain('VDU1-0');
  expect(msg).toContain(sshd.hostKeyFingerprint);
  expect(msg).toContain(other.hostKeyFingerprint);
  expect(store.get('VDU1-0')).toBe(sshd.hostKeyFingerprint);

  // Another VNFC id is independent.
  const s3 = await connectSsh(target({ port: other.port, hostKeyId: 'VDU2-0' }), { hostKeys: store, deadlineMs: 5000 });
  sessions.push(s3);
  expect(store.get('VDU2-0')).toBe(other.hostKeyFingerprint);

  // Heal replaced VDU1-0: forget, then the new key is learned.
  store.forget('VDU1-0');
  const s4 = await connectSsh(target({ port: other.port, hostKeyId: 'VDU1-0' }), { hostKeys: store, log, deadlineMs: 5000 });
  sessions.push(s4);
  expect(store.get('VDU1-0')).toBe(other.hostKeyFingerprint);
});

test('an unparsable private key is a clear, non-retried error', async () => {
  const e = await catching(connectSsh({ host: sshd.host, port: sshd.port, username: SSH_TEST_USER, privateKey: 'not a key' }, { deadlineMs: 20_000 }));
  expect(e).toBeInstanceOf(SshError);
  expect((e as Error).message).toMatch(/invalid SSH options/);
  expect((e as Error).message).not.toContain('not a key');
});

test('errors after the connection: the password is never in messages or logs', async () => {
  const s = await connectSsh(target(), { log, deadlineMs: 5000 });
  sessions.push(s);
  const e = await catching(s.run(`echo "pw is ${SSH_TEST_PASSWORD}" >&2; echo ${SSH_TEST_PASSWORD}; exit 5`));
  expect((e as Error).message).toContain('****');
  expect((e as { stdout: string }).stdout).toBe('****\n');
});

afterAll(() => {
  expect(errors.length).toBeGreaterThanOrEqual(6);
  for (const e of errors) {
    const text = `${(e as Error).message}\n${(e as Error).stack}\n${JSON.stringify(e)}`;
    expect(text).not.toContain(SSH_TEST_PASSWORD);
    expect(text).not.toContain('wr0ng-Secret-xyz');
  }
  expect(logs.length).toBeGreaterThan(0);
  for (const l of logs) expect(l).not.toContain(SSH_TEST_PASSWORD);
});
