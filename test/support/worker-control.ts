/** Kill -9 and restart the product's worker (or scripts worker) process during a test. */
import fs from 'node:fs';
import path from 'node:path';
import { scriptsWorkerEnv, startComponent } from '../../runtime/processes';
import { readState, writeState } from '../harness/state';
import { onlyInDisruptiveTier } from './tier-guard';

export function killWorker(which: 'worker' | 'scripts-worker' = 'worker'): void {
  onlyInDisruptiveTier(`killing the ${which}`);
  const s = readState();
  process.kill(s.pids[which], 'SIGKILL');
}

/** Starts the worker again; `extraEnv` (e.g. WORKFLOW_BUNDLE of another build) applies to this start only. */
export function restartWorker(which: 'worker' | 'scripts-worker' = 'worker', extraEnv: Record<string, string> = {}): void {
  onlyInDisruptiveTier(`restarting the ${which}`);
  const s = readState();
  const log = fs.openSync(path.join(s.logDir, `${which}.log`), 'a');
  const env = { ...(which === 'scripts-worker' ? scriptsWorkerEnv(s.env, s.dataDir) : s.env as NodeJS.ProcessEnv), ...extraEnv };
  const c = startComponent(which, env, log);
  c.proc.unref();
  s.pids[which] = c.proc.pid!;
  writeState(s);
}
