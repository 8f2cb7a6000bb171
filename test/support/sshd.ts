/**
 * A real OpenSSH sshd for the SSH layer's tests: `/usr/sbin/sshd -D -e -f
 * <temp sshd_config>` on 127.0.0.1:<port> with its own ed25519 host key, password
 * and public-key login for the test user `nfvtest` (passwordful sudo).
 * ensureSshTestDeps() runs scripts/install-test-deps.sh when something is
 * missing and we are root.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../harness/ports';

export const SSH_TEST_USER = 'nfvtest';
export const SSH_TEST_PASSWORD = 'nfvtest-pass-123';
const SSHD = '/usr/sbin/sshd';
const INSTALL_SCRIPT = path.resolve(__dirname, '../../scripts/install-test-deps.sh');

function missingDeps(): string[] {
  const missing: string[] = [];
  if (!fs.existsSync(SSHD)) missing.push(SSHD);
  if (!fs.existsSync('/usr/bin/ssh-keygen')) missing.push('ssh-keygen');
  if (!fs.existsSync('/usr/bin/sudo')) missing.push('sudo');
  const passwd = fs.readFileSync('/etc/passwd', 'utf8');
  if (!passwd.split('\n').some((l) => l.startsWith(`${SSH_TEST_USER}:`))) missing.push(`user ${SSH_TEST_USER}`);
  if (!fs.existsSync(`/etc/sudoers.d/${SSH_TEST_USER}`)) missing.push(`/etc/sudoers.d/${SSH_TEST_USER}`);
  if (!fs.existsSync('/run/sshd')) missing.push('/run/sshd');
  return missing;
}

/** Installs OpenSSH, sudo and the test user when missing (as root), else throws saying how. */
export function ensureSshTestDeps(): void {
  let missing = missingDeps();
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`SSH tests need ${missing.join(', ')}; run as root: bash ${INSTALL_SCRIPT}`);
  }
  try {
    execFileSync('bash', [INSTALL_SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    throw new Error(`${INSTALL_SCRIPT} failed: ${err.stderr?.toString().slice(-2000) || err.message}`);
  }
  missing = missingDeps();
  if (missing.length) throw new Error(`${INSTALL_SCRIPT} ran but ${missing.join(', ')} still missing`);
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
