/** Helpers for tests of package scripts, which run on the scripts worker as another user (nobody when the tests run as root). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh directory package scripts may write into (a private mkdtemp is out of their reach), removed after the file's tests. */
export function scriptWritableDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o777);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
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
