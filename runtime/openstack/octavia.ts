/** Octavia: octavia.conf, the SQLite schema (once per database and Octavia version), the one-process octavia_api.py. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { octaviaConf, OctaviaConfInput } from './configs';
import { venvBin } from './install';
import { Proc, runTool, spawnDetached, stopProc, waitForStatus } from './procs';
import { Layout, writeIfChanged } from './state';

export interface OctaviaInput {
  venv: string;
  l: Layout;
  conf: OctaviaConfInput;
  pinsHash: string;
  env: NodeJS.ProcessEnv;
  stdio?: number;
  log: (m: string) => void;
}

export const octaviaConfPath = (l: Layout) => path.join(l.octavia, 'octavia.conf');
/** Part of octavia_api.py's command line, unique per dataDir: finds leftovers of earlier runs. */
export const octaviaMarker = (l: Layout) => `octavia_api.py --config-file ${octaviaConfPath(l)}`;

export async function prepareOctavia(o: OctaviaInput): Promise<void> {
  writeIfChanged(octaviaConfPath(o.l), octaviaConf(o.l, o.conf), 0o600);
  const marker = path.join(o.l.octavia, 'schema.done');
  const want = crypto.createHash('sha256').update(`${o.pinsHash}\n${path.join(o.l.octavia, 'octavia.db')}`).digest('hex');
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').trim() === want) return;
  const t0 = Date.now();
  await runTool('octavia_setup.py', venvBin('python', o.venv), [path.join(__dirname, 'octavia_setup.py'), '--config-file', octaviaConfPath(o.l)], {
    env: o.env, cwd: o.l.octavia, logFile: path.join(o.l.logs, 'octavia-setup.log'),
  });
  fs.writeFileSync(marker, want + '\n');
  o.log(`octavia: schema in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

export async function startOctavia(o: OctaviaInput): Promise<Proc> {
  const t0 = Date.now();
  const p = spawnDetached({
    name: 'octavia',
    cmd: venvBin('python', o.venv),
    args: [path.join(__dirname, 'octavia_api.py'), '--config-file', octaviaConfPath(o.l)],
    cwd: o.l.octavia,
    env: o.env,
    pidFile: o.l.octaviaPid,
    stdio: o.stdio,
    logFile: path.join(o.l.logs, 'octavia-stdout.log'),
  });
  try {
    // GET / lists the API versions without a token
    await waitForStatus(`http://127.0.0.1:${o.conf.port}/`, 200, 120_000, p, `${o.l.logs}/octavia*.log`);
  } catch (e) {
    await stopProc(p, 0, 'SIGKILL');
    throw e;
  }
  o.log(`octavia: pid ${p.pid}, first response after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return p;
}
