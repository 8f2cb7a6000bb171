/**
 * One install or build at a time per tools directory, across processes
 * (parallel jest runs, a second `npm start`): a lock file holding the
 * holder's pid, taken over when that process is gone (a killed build).
 */
import fs from 'node:fs';
import path from 'node:path';

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs `fn` holding `lockFile`; `what` names the work in the waiting message. */
export function withBuildLock<T>(lockFile: string, what: string, fn: () => T, log: (m: string) => void): T {
  fs.mkdirSync(path.dirname(lockFile), { recursive: true });
  let said = false;
  for (;;) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = Number(fs.readFileSync(lockFile, 'utf8')) || 0;
      if (!holder || !alive(holder)) {
        fs.rmSync(lockFile, { force: true }); // left by a killed build
        continue;
      }
      if (!said) log(`waiting for another ${what} (pid ${holder}) ...`);
      said = true;
      sleepSync(1000);
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lockFile, { force: true });
  }
}
