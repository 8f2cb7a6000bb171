/** Kill -9 and restart the product's worker process during a test. */
import fs from 'node:fs';
import path from 'node:path';
import { startComponent } from '../../runtime/processes';
import { readState, writeState } from '../harness/state';

export function killWorker(): void {
  const s = readState();
  process.kill(s.pids.worker, 'SIGKILL');
}

export function restartWorker(): void {
  const s = readState();
  const log = fs.openSync(path.join(s.logDir, 'worker.log'), 'a');
  const c = startComponent('worker', s.env as NodeJS.ProcessEnv, log);
  c.proc.unref();
  s.pids.worker = c.proc.pid!;
  writeState(s);
}
