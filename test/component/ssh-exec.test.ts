/** SSH layer against a real OpenSSH sshd on loopback: exit codes vs stderr,
 *  timeouts, a dropped connection, sudo with the login password, SFTP uploads. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  connectSsh, SshCommandError, SshConnectionLostError, SshSession, SshTimeoutError, SshUploadError,
} from '../../ssh';
import { makeKeyPair, SSH_TEST_PASSWORD, SSH_TEST_USER, startSshd, testUserTraces, TestSshd } from '../support/sshd';

jest.setTimeout(30_000);

let sshd: TestSshd;
let s: SshSession;
let tmp: string;
const logs: string[] = [];
const errors: unknown[] = [];
const extra: SshSession[] = [];

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    errors.push(e);
    return e as Error;
  }
  throw new Error('expected a rejection');
}

const connect = (over: Record<string, unknown> = {}) => connectSsh(
  { host: sshd.host, port: sshd.port, username: SSH_TEST_USER, password: SSH_TEST_PASSWORD, ...over },
  { deadlineMs: 5000, log: (m) => logs.push(m) },
).then((x) => { extra.push(x); return x; });

const home = `/home/${SSH_TEST_USER}`;

beforeAll(async () => {
  sshd = await startSshd();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nfv-ssh-exec-'));
  s = await connect();
}, 600_000);

afterAll(async () => {
  await Promise.all(extra.map((x) => x.close()));
  await sshd?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  // The throw-away login user (random password) went with the last sshd: no account, group, home or sudoers drop-in.
  expect(testUserTraces(SSH_TEST_USER)).toEqual({ passwd: false, shadow: false, group: false, sudoers: false, home: false });
  for (const e of errors) {
    expect(`${(e as Error).message}\n${JSON.stringify(e)}`).not.toContain(SSH_TEST_PASSWORD);
  }
  for (const l of logs) expect(l).not.toContain(SSH_TEST_PASSWORD);
});

describe('exec', () => {
  test('stdout and stderr apart; stderr with exit 0 is a success', async () => {
    const r = await s.run('echo out; echo warn >&2; exit 0');
    expect(r).toEqual({ code: 0, stdout: 'out\n', stderr: 'warn\n' });
  });

  test('exit 3 is failure 3: exec returns it, run throws SshCommandError', async () => {
    expect(await s.exec('echo partial; exit 3')).toEqual({ code: 3, stdout: 'partial\n', stderr: '' });
    const e = await rejection(s.run('echo oops >&2; exit 3'));
    expect(e).toBeInstanceOf(SshCommandError);
    expect(e).toMatchObject({ code: 3, stdout: '', stderr: 'oops\n', command: 'echo oops >&2; exit 3' });
    expect(e.message).toBe(`command "echo oops >&2; exit 3" on ${s.target} failed with exit code 3: oops`);
  });

  test('stdin is passed and always closed', async () => {
    expect((await s.run('cat', { stdin: 'hello\nworld' })).stdout).toBe('hello\nworld');
    expect((await s.run('cat; echo done', { timeoutMs: 5000 })).stdout).toBe('done\n');
  });

  test('binary-safe multibyte output and a larger stream', async () => {
    const r = await s.run("printf 'h\\303\\251 ✓\\n'; head -c 3000000 /dev/zero | tr '\\0' x");
    expect(r.stdout.startsWith('hé ✓\n')).toBe(true);
    expect(r.stdout.length).toBe('hé ✓\n'.length + 3_000_000);
  });

  test('a command over its timeout is killed with a clear error', async () => {
    const marker = `sleep 30.${crypto.randomInt(1000, 9999)}`;
    const started = Date.now();
    const e = await rejection(s.exec(`echo before; ${marker}`, { timeoutMs: 1000 }));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(e).toBeInstanceOf(SshTimeoutError);
    expect(e.message).toBe(`command "echo before; ${marker}" on ${s.target} timed out after 1000 ms and was killed`);
    expect((e as SshTimeoutError).stdout).toBe('before\n');
    // The remote process group got SIGKILL.
    await waitFor(() => !processRunning(marker), 3000);
    // The session is still usable.
    expect((await s.run('echo still-here')).stdout).toBe('still-here\n');
  });

  test('a connection dropped mid-command is a clear error, not a hang', async () => {
    const victim = await connect();
    const started = Date.now();
    const running = victim.exec('sleep 20', { timeoutMs: 25_000 });
    await new Promise((r) => setTimeout(r, 500));
    expect(sshd.dropConnections()).toBeGreaterThan(0);
    const e = await rejection(running);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(e).toBeInstanceOf(SshConnectionLostError);
    expect(e.message).toMatch(new RegExp(`^connection to ${SSH_TEST_USER}@127\\.0\\.0\\.1:${sshd.port} lost while running "sleep 20"`));
    expect(victim.isOpen).toBe(false);
    // Later calls fail fast too.
    expect(await rejection(victim.exec('true'))).toBeInstanceOf(SshConnectionLostError);
    // The listener is still up: a new session works (ours was dropped as well).
    s = await connect();
    expect((await s.run('echo new')).stdout).toBe('new\n');
  });

  test('keep-alives detect a server that stopped answering', async () => {
    const sshd2 = await startSshd();
    try {
      const hung = await connectSsh(
        { host: sshd2.host, port: sshd2.port, username: SSH_TEST_USER, password: SSH_TEST_PASSWORD },
        { deadlineMs: 5000, keepaliveIntervalMs: 200, keepaliveCountMax: 2, log: (m) => logs.push(m) },
      );
      extra.push(hung);
      const running = hung.exec('sleep 20', { timeoutMs: 25_000 });
      await new Promise((r) => setTimeout(r, 300));
      expect(sshd2.freezeConnections()).toBeGreaterThan(0);
      const started = Date.now();
      const e = await rejection(running);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(e).toBeInstanceOf(SshConnectionLostError);
      expect(e.message).toMatch(/lost while running "sleep 20" .*Keepalive timeout/);
    } finally {
      await sshd2.stop();
    }
  });

  test('a session the caller closes rejects new commands', async () => {
    const x = await connect();
    await x.close();
    expect(await rejection(x.exec('true'))).toBeInstanceOf(SshConnectionLostError);
  });
});

describe('sudo with the login password', () => {
  test('runs as root; the password goes to sudo, never to the command or the command line', async () => {
    const r = await s.run('id -u; whoami', { sudo: true });
    expect(r).toEqual({ code: 0, stdout: '0\nroot\n', stderr: '' });
    // The whole command line runs as root, and stdin reaches the command intact.
    const f = `/root/nfv-sudo-${crypto.randomBytes(4).toString('hex')}`;
    await s.run(`cat > ${f}; chmod 600 ${f}`, { sudo: true, stdin: 'payload\n' });
    expect((await s.run(`cat ${f}; rm -f ${f}`, { sudo: true })).stdout).toBe('payload\n');
    // Not visible in the process list while sudo runs.
    const ps = s.run('sleep 1; true', { sudo: true });
    await new Promise((r) => setTimeout(r, 400));
    const cmdlines = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map((p) => {
      try { return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8'); } catch { return ''; }
    });
    expect(cmdlines.some((c) => c.includes('nfv-sudo-prompt'))).toBe(true);
    expect(cmdlines.some((c) => c.includes(SSH_TEST_PASSWORD))).toBe(false);
    await ps;
  });

  test('a sudo command over its timeout: clear error, and the root process is killed too', async () => {
    const marker = `sleep 30.${crypto.randomInt(1000, 9999)}`;
    const started = Date.now();
    const e = await rejection(s.exec(marker, { sudo: true, timeoutMs: 1000 }));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(e).toBeInstanceOf(SshTimeoutError);
    expect(e.message).toBe(`command "${marker}" on ${s.target} timed out after 1000 ms and was killed`);
    await waitFor(() => !processRunning(marker), 6000);
  });

  test('a failing command under sudo keeps its code and stderr', async () => {
    const e = await rejection(s.run('echo no >&2; exit 7', { sudo: true }));
    expect(e).toMatchObject({ code: 7, stderr: 'no\n' });
  });

  test('a wrong sudo password fails cleanly (no hang, no password in the error)', async () => {
    const { privateKey, publicKey } = makeKeyPair(tmp, 'sudo_key');
    sshd.authorizeKey(publicKey);
    const bad = await connect({ password: 'not-the-Password-42', privateKey });
    const started = Date.now();
    const e = await rejection(bad.run('id -u', { sudo: true, timeoutMs: 10_000 }));
    expect(Date.now() - started).toBeLessThan(8000);
    expect(e).toBeInstanceOf(SshCommandError);
    expect((e as SshCommandError).code).toBe(1);
    expect((e as SshCommandError).stdout).toBe('');
    expect(`${e.message}${JSON.stringify(e)}`).not.toContain('not-the-Password-42');
    // Without any password sudo does not prompt (sudo -n).
    const keyOnly = await connect({ password: undefined, privateKey });
    const e2 = await rejection(keyOnly.run('id -u', { sudo: true, timeoutMs: 10_000 }));
    expect(e2.message).toMatch(/password is required/);
  });
});

describe('upload', () => {
  const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

  test('a Buffer, verified by size and sha256, with a mode', async () => {
    const data = crypto.randomBytes(200_000);
    const remote = `${home}/up-${crypto.randomBytes(4).toString('hex')}.bin`;
    expect(await s.upload(data, remote, { mode: 0o640 })).toEqual({ size: data.length, sha256: sha(data) });
    expect(fs.readFileSync(remote).equals(data)).toBe(true);
    expect(fs.statSync(remote).mode & 0o777).toBe(0o640);
    // Overwrite with shorter content.
    const small = Buffer.from('short\n');
    await s.upload(small, remote);
    expect(fs.readFileSync(remote, 'utf8')).toBe('short\n');
    fs.rmSync(remote);
  });

  test('a local file', async () => {
    const local = path.join(tmp, 'script.sh');
    fs.writeFileSync(local, '#!/bin/sh\necho from-script\n'.repeat(5000));
    const remote = `${home}/script-${crypto.randomBytes(4).toString('hex')}.sh`;
    const r = await s.upload({ path: local }, remote, { mode: 0o755 });
    expect(r.sha256).toBe(sha(fs.readFileSync(local)));
    expect((await s.run(`${remote} | head -1`)).stdout).toBe('from-script\n');
    fs.rmSync(remote);
  });

  test('a corrupted transfer is uploaded again once; twice is an error', async () => {
    const data = Buffer.from('the real content\n');
    const remote = `${home}/retry-${crypto.randomBytes(4).toString('hex')}.txt`;
    const proto = Object.getPrototypeOf(s) as { putFile: (...a: unknown[]) => Promise<void> };
    const real = proto.putFile;
    const corrupt = (times: number) => {
      let n = 0;
      return jest.spyOn(proto, 'putFile').mockImplementation(function (this: unknown, sftp: unknown, content: unknown, dest: unknown) {
        n += 1;
        return real.call(this, sftp, n <= times ? Buffer.from('the fake content\n') : content, dest);
      });
    };
    let spy = corrupt(1);
    try {
      expect(await s.upload(data, remote)).toEqual({ size: data.length, sha256: sha(data) });
      expect(spy).toHaveBeenCalledTimes(2);
    } finally { spy.mockRestore(); }
    expect(fs.readFileSync(remote, 'utf8')).toBe('the real content\n');
    expect(logs.some((l) => /verification failed \(sha256 [0-9a-f]{64}, expected [0-9a-f]{64}\); uploading again/.test(l))).toBe(true);

    spy = corrupt(2);
    try {
      const e = await rejection(s.upload(data, remote));
      expect(e).toBeInstanceOf(SshUploadError);
      expect(e.message).toMatch(new RegExp(`upload to ${s.target}:${remote} failed verification twice \\(sha256 `));
    } finally { spy.mockRestore(); }
    fs.rmSync(remote);
  });

  test('to a path needing root: /tmp then sudo mv, owned by root', async () => {
    const data = Buffer.from('root config\n');
    const remote = `/etc/nfv-test-${crypto.randomBytes(4).toString('hex')}.conf`;
    expect(await rejection(s.upload(data, remote))).toBeInstanceOf(SshUploadError);
    try {
      await s.upload(data, remote, { sudo: true, mode: 0o600 });
      expect(fs.readFileSync(remote, 'utf8')).toBe('root config\n');
      const st = fs.statSync(remote);
      expect([st.uid, st.gid, st.mode & 0o777]).toEqual([0, 0, 0o600]);
      expect(fs.readdirSync('/tmp').filter((f) => f.startsWith('.nfv-upload-'))).toEqual([]);
    } finally {
      fs.rmSync(remote, { force: true });
    }
  });

  test('an unwritable destination is a clear upload error', async () => {
    const e = await rejection(s.upload(Buffer.from('x'), '/nonexistent-dir/file'));
    expect(e).toBeInstanceOf(SshUploadError);
    expect(e.message).toMatch(/^upload to .*:\/nonexistent-dir\/file failed: /);
  });
});

function processRunning(cmdline: string): boolean {
  return fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).some((p) => {
    try { return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').join(' ').includes(cmdline); } catch { return false; }
  });
}

async function waitFor(cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
