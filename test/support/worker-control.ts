/** Kill -9 and restart the product's worker (or scripts worker) process during a test. */
import fs from 'node:fs';
import path from 'node:path';
import { scriptsWorkerEnv, startComponent } from '../../runtime/processes';
import { readState, writeState } from '../harness/state';

export function killWorker(which: 'worker' | 'scripts-worker' = 'worker'): void {
  const s = readState();
  process.kill(s.pids[which], 'SIGKILL');
}

export function restartWorker(which: 'worker' | 'scripts-worker' = 'worker'): void {
  const s = readState();
  const log = fs.openSync(path.join(s.logDir, `${which}.log`), 'a');
  const env = which === 'scripts-worker' ? scriptsWorkerEnv(s.env, s.dataDir) : s.env as NodeJS.ProcessEnv;
  const c = startComponent(which, env, log);
  c.proc.unref();
  s.pids[which] = c.proc.pid!;
  writeState(s);
}
