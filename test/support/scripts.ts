/** Helpers for tests of package scripts, which run on the scripts worker sandboxed: another uid, a private /tmp (mgmt/script-jail.ts). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Scratch space outside /tmp, /var/tmp and /dev/shm, which scripts see as private tmpfs of their own. */
const SCRATCH = path.resolve(__dirname, '../../.test-scratch');

/** A fresh directory package scripts may write into (a private mkdtemp is out of their reach), removed after the file's tests. */
export function scriptWritableDir(prefix: string): string {
  fs.mkdirSync(SCRATCH, { recursive: true, mode: 0o755 });
  const dir = fs.mkdtempSync(path.join(SCRATCH, prefix));
  fs.chmodSync(dir, 0o777);
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    try { fs.rmdirSync(SCRATCH); } catch { /* another file's directory is still there */ }
  });
  return dir;
}

/** A file in a fresh scriptWritableDir that every script may append to (each job runs as a uid of its own). */
export function scriptWritableFile(prefix: string, name: string): string {
  const file = path.join(scriptWritableDir(prefix), name);
  fs.writeFileSync(file, '');
  fs.chmodSync(file, 0o666);
  return file;
}

/** A scripts worker's job directories on the host (os.tmpdir()/nfv-script-<its pid>-*). */
export function scriptJobDirsOf(pid: number): string[] {
  return fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(`nfv-script-${pid}-`));
}

/** Command lines of the running processes that contain `marker`. */
export function processesWith(marker: string): string[] {
  const out: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      if (cmd.includes(marker)) out.push(`${pid} ${cmd}`);
    } catch { /* gone */ }
  }
  return out;
}
