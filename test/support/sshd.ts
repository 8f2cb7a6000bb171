/**
 * A real OpenSSH sshd for the SSH layer's tests: `/usr/sbin/sshd -D -e -f
 * <temp sshd_config>` on 127.0.0.1:<port> with its own ed25519 host key,
 * password and public-key login for a throw-away test user with passwordful
 * sudo. ensureSshTestDeps() runs scripts/install-test-deps.sh (packages and
 * /run/sshd only) when something is missing and we are root.
 *
 * The test user leaves no known password on the machine:
 * - its name (`nfvt-<random>`) and password (random) are made per test file
 *   (per jest module registry), and the password exists only in this process;
 * - the first startSshd() creates it (useradd: locked, no password; the
 *   sudoers drop-in; only then chpasswd sets the random password) with an
 *   expiry date two days ahead, and the last TestSshd.stop() removes it again
 *   (sudoers drop-in, then userdel -r);
 * - a run killed halfway leaves an account whose password nobody knows, which
 *   expires on its own and which the next run removes at start (the account's
 *   comment names the creating process; only accounts whose process is gone
 *   are removed), together with the fixed-password `nfvtest` account and
 *   drop-in that the old install script created.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../harness/ports';

/** This test file's throw-away login user (created by startSshd, removed when the last sshd stops). */
export const SSH_TEST_USER = `nfvt-${crypto.randomBytes(5).toString('hex')}`;
/** Its password: random per test file, never written anywhere but chpasswd's stdin. */
export const SSH_TEST_PASSWORD = `Pw${crypto.randomBytes(18).toString('hex')}`;
/** Account comment (GECOS) of test users; followed by ` pid=<pid> start=<process start time>`. */
export const TEST_USER_MARKER = 'nfv-orchestrator SSH test user';
/** What scripts/install-test-deps.sh used to create, with password nfvtest-pass-123. */
export const LEGACY_TEST_USER = 'nfvtest';
const SSHD = '/usr/sbin/sshd';
const INSTALL_SCRIPT = path.resolve(__dirname, '../../scripts/install-test-deps.sh');

function missingDeps(): string[] {
  const missing: string[] = [];
  if (!fs.existsSync(SSHD)) missing.push(SSHD);
  if (!fs.existsSync('/usr/bin/ssh-keygen')) missing.push('ssh-keygen');
  if (!fs.existsSync('/usr/bin/sudo')) missing.push('sudo');
  if (!fs.existsSync('/run/sshd')) missing.push('/run/sshd');
  return missing;
}

/** Installs OpenSSH and sudo when missing (as root); throws saying how when not root. */
export function ensureSshTestDeps(): void {
  if (process.getuid?.() !== 0) {
    throw new Error(`SSH tests need root: they create a throw-away user with a random password and a sudoers drop-in (and remove both); ${missingDeps().length ? `missing ${missingDeps().join(', ')}: run as root bash ${INSTALL_SCRIPT}` : 'run the tests as root'}`);
  }
  let missing = missingDeps();
  if (missing.length === 0) return;
  try {
    execFileSync('bash', [INSTALL_SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    throw new Error(`${INSTALL_SCRIPT} failed: ${err.stderr?.toString().slice(-2000) || err.message}`);
  }
  missing = missingDeps();
  if (missing.length) throw new Error(`${INSTALL_SCRIPT} ran but ${missing.join(', ')} still missing`);
}

// ---- the throw-away test user ------------------------------------------------

const sudoersFile = (user: string) => `/etc/sudoers.d/${user}`;

function passwdEntry(user: string): string[] | undefined {
  const line = fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith(`${user}:`));
  return line?.split(':');
}

/** The password field of the user's /etc/shadow entry (`!...` = locked), or undefined without one. */
export function shadowPassword(user: string): string | undefined {
  const line = fs.readFileSync('/etc/shadow', 'utf8').split('\n').find((l) => l.startsWith(`${user}:`));
  return line?.split(':')[1];
}

/** What is on the machine for a test user: account, shadow entry, sudoers drop-in, home directory. */
export function testUserTraces(user: string): { passwd: boolean; shadow: boolean; group: boolean; sudoers: boolean; home: boolean } {
  return {
    passwd: passwdEntry(user) !== undefined,
    shadow: shadowPassword(user) !== undefined,
    group: fs.readFileSync('/etc/group', 'utf8').split('\n').some((l) => l.startsWith(`${user}:`)),
    sudoers: fs.existsSync(sudoersFile(user)),
    home: fs.existsSync(`/home/${user}`),
  };
}

/** Start time of a process (field 22 of /proc/<pid>/stat), undefined when it is gone. */
function processStart(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function run(cmd: string, args: string[], input?: string): void {
  try {
    execFileSync(cmd, args, { input, stdio: ['pipe', 'pipe', 'pipe'], timeout: 30_000 });
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    throw new Error(`${cmd} ${args.join(' ')} failed: ${err.stderr?.toString().trim() || err.message}`);
  }
}

/** Removes a test user: its sudoers drop-in first (no sudo from here on), then the account, its group and home. */
export function removeTestUser(user: string): void {
  fs.rmSync(sudoersFile(user), { force: true });
  if (passwdEntry(user)) {
    try { run('usermod', ['--lock', '--expiredate', '1', user]); } catch { /* userdel follows */ }
    try {
      run('userdel', ['--remove', '--force', user]);
    } catch (e) {
      if (passwdEntry(user)) throw e; // else only a warning (e.g. about the home directory), handled below
    }
  }
  // userdel -r leaves the home directory when it is not owned by the user, or when the account was half made.
  if (!passwdEntry(user) && /^[a-z][a-z0-9-]*$/.test(user)) fs.rmSync(`/home/${user}`, { recursive: true, force: true });
}

/**
 * Removes what earlier runs left: test users whose creating process is gone
 * (a run killed before its cleanup), and the fixed-password `nfvtest` user
 * with its drop-in from the old install script (recognised by that drop-in).
 * Returns the users removed.
 */
export function removeLeftoverTestUsers(): string[] {
  const removed: string[] = [];
  for (const line of fs.readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [name, , , , gecos] = line.split(':');
    if (!name || !gecos?.startsWith(TEST_USER_MARKER)) continue;
    const m = /pid=(\d+) start=(\d+)/.exec(gecos);
    if (m && processStart(Number(m[1])) === m[2]) continue; // a run still going (this or another process)
    removeTestUser(name);
    removed.push(name);
  }
  const legacyDropIn = sudoersFile(LEGACY_TEST_USER);
  let legacy = '';
  try { legacy = fs.readFileSync(legacyDropIn, 'utf8').trim(); } catch { /* none */ }
  if (legacy === `${LEGACY_TEST_USER} ALL=(ALL:ALL) ALL`) {
    removeTestUser(LEGACY_TEST_USER);
    removed.push(LEGACY_TEST_USER);
  }
  return removed;
}

let userRefs = 0;
const onExit = () => { try { removeTestUser(SSH_TEST_USER); } catch { /* best effort at exit */ } };

/** Creates this file's test user on first use (after clearing leftovers); the last release removes it. */
function acquireTestUser(): void {
  if (userRefs++ > 0) return;
  try {
    removeLeftoverTestUsers();
    if (passwdEntry(SSH_TEST_USER)) removeTestUser(SSH_TEST_USER);
    const expires = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    const comment = `${TEST_USER_MARKER} pid=${process.pid} start=${processStart(process.pid)}`;
    process.on('exit', onExit);
    // No --password: the account starts locked ("!" in /etc/shadow).
    run('useradd', ['--create-home', '--shell', '/bin/bash', '--user-group', '--comment', comment, '--expiredate', expires, SSH_TEST_USER]);
    const tmp = `${sudoersFile(SSH_TEST_USER)}.tmp`; // sudo ignores names with a dot
    fs.writeFileSync(tmp, `${SSH_TEST_USER} ALL=(ALL:ALL) ALL\n`, { mode: 0o440 });
    try {
      run('visudo', ['-cf', tmp]);
      fs.renameSync(tmp, sudoersFile(SSH_TEST_USER));
    } finally {
      fs.rmSync(tmp, { force: true });
    }
    run('chpasswd', [], `${SSH_TEST_USER}:${SSH_TEST_PASSWORD}\n`);
  } catch (e) {
    userRefs = 0;
    releaseNow();
    throw e;
  }
}

function releaseNow(): void {
  removeTestUser(SSH_TEST_USER);
  process.off('exit', onExit);
}

function releaseTestUser(): void {
  if (userRefs === 0) return;
  if (--userRefs === 0) releaseNow();
}

export interface TestSshd {
  host: string;
  port: number;
  /** Its temp directory (config, host key, authorized_keys, pid file). */
  dir: string;
  pid: number;
  /** `SHA256:...` of its host key, as ssh-keygen -l prints it. */
  hostKeyFingerprint: string;
  /** Appends an OpenSSH public key line to its AuthorizedKeysFile. */
  authorizeKey(publicKeyLine: string): void;
  /** SIGKILLs the per-connection sshd processes and the commands they run:
   *  every open connection drops, the listener stays up. Returns how many. */
  dropConnections(): number;
  /** SIGSTOPs the per-connection sshd processes: open connections hang
   *  (TCP stays up, nothing answers). stop() kills them. */
  freezeConnections(): number;
  /** What sshd logged so far (its stderr, -e). */
  output(): string;
  stop(): Promise<void>;
}

/** A key pair made by ssh-keygen (OpenSSH format). */
export function makeKeyPair(dir: string, name = 'id_ed25519'): { privateKey: string; publicKey: string } {
  const file = path.join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'nfv-test', '-f', file]);
  return { privateKey: fs.readFileSync(file, 'utf8'), publicKey: fs.readFileSync(`${file}.pub`, 'utf8').trim() };
}

export async function startSshd(o: { port?: number } = {}): Promise<TestSshd> {
  ensureSshTestDeps();
  acquireTestUser();
  let released = false;
  const release = () => { if (!released) { released = true; releaseTestUser(); } };
  try {
    return await launchSshd(o, release);
  } catch (e) {
    release();
    throw e;
  }
}

async function launchSshd(o: { port?: number }, release: () => void): Promise<TestSshd> {
  const port = o.port ?? (await freePort());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nfv-sshd-'));
  fs.chmodSync(dir, 0o755);
  const hostKey = path.join(dir, 'ssh_host_ed25519_key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'nfv-test-host', '-f', hostKey]);
  const hostKeyFingerprint = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${hostKey}.pub`]).toString().split(/\s+/)[1];
  const authorizedKeys = path.join(dir, 'authorized_keys');
  fs.writeFileSync(authorizedKeys, '', { mode: 0o644 });
  const config = path.join(dir, 'sshd_config');
  fs.writeFileSync(config, [
    `ListenAddress 127.0.0.1`,
    `Port ${port}`,
    `HostKey ${hostKey}`,
    `PidFile ${path.join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${authorizedKeys}`,
    'PasswordAuthentication yes',
    'KbdInteractiveAuthentication no',
    'PubkeyAuthentication yes',
    // Password login works without PAM here (shadow passwords); PAM in
    // containers can fail on pam_loginuid.
    'UsePAM no',
    // The temp dirs are under /tmp (world-writable), which StrictModes refuses.
    'StrictModes no',
    'PermitRootLogin no',
    `AllowUsers ${SSH_TEST_USER}`,
    'MaxStartups 100',
    `LogLevel ${process.env.SSHD_LOG_LEVEL ?? 'INFO'}`,
    'Subsystem sftp internal-sftp',
    '',
  ].join('\n'));
  fs.mkdirSync('/run/sshd', { recursive: true });
  const proc = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr!.on('data', (d: Buffer) => { log += d.toString(); if (log.length > 100_000) log = log.slice(-50_000); });
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => { proc.kill('SIGKILL'); reject(new Error(`sshd did not start within 10 s:\n${log}`)); }, 10_000);
    const onData = () => {
      if (log.includes('Server listening on')) { clearTimeout(t); proc.stderr!.off('data', onData); resolve(); }
    };
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => { clearTimeout(t); reject(new Error(`sshd exited (${code}) at start:\n${log}`)); });
    proc.once('error', (e) => { clearTimeout(t); reject(e); });
  });
  proc.removeAllListeners('exit');
  const pid = proc.pid!;
  return {
    host: '127.0.0.1', port, dir, pid, hostKeyFingerprint,
    authorizeKey: (line) => fs.appendFileSync(authorizedKeys, `${line.trim()}\n`),
    dropConnections: () => {
      const all = descendants(pid);
      // sshd processes first, so none of them can report a clean exit of the command.
      const ordered = [...all.filter((p) => p.comm === 'sshd'), ...all.filter((p) => p.comm !== 'sshd')];
      for (const p of ordered) { try { process.kill(p.pid, 'SIGKILL'); } catch { /* gone */ } }
      return ordered.length;
    },
    freezeConnections: () => {
      const frozen = descendants(pid).filter((p) => p.comm === 'sshd');
      for (const p of frozen) { try { process.kill(p.pid, 'SIGSTOP'); } catch { /* gone */ } }
      return frozen.length;
    },
    output: () => log,
    stop: async () => {
      await stopProcess(proc, pid);
      fs.rmSync(dir, { recursive: true, force: true });
      release();
    },
  };
}

async function stopProcess(proc: ChildProcess, pid: number): Promise<void> {
  const kids = descendants(pid);
  if (proc.exitCode === null && proc.signalCode === null) {
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    try { process.kill(pid, 'SIGTERM'); } catch { /* gone */ }
    const t = setTimeout(() => { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }, 3000);
    await exited;
    clearTimeout(t);
  }
  for (const p of kids) { try { process.kill(p.pid, 'SIGKILL'); } catch { /* gone */ } }
}

/** All descendants of pid, from /proc. */
function descendants(pid: number): Array<{ pid: number; comm: string }> {
  const procs: Array<{ pid: number; ppid: number; comm: string }> = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      procs.push({ pid: Number(name), ppid, comm });
    } catch { /* exited meanwhile */ }
  }
  const out: Array<{ pid: number; comm: string }> = [];
  const queue = [pid];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const p of procs) {
      if (p.ppid === parent) { out.push({ pid: p.pid, comm: p.comm }); queue.push(p.pid); }
    }
  }
  return out;
}
