/** Heat: heat.conf, db_sync (once per database and Heat version), the one-process heat_all.py launcher. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { heatConf, HeatConfInput, sqliteUrl } from './configs';
import { venvBin } from './install';
import { Proc, runTool, spawnDetached, stopProc, waitForStatus } from './procs';
import { Layout, writeIfChanged } from './state';

export interface HeatInput {
  venv: string;
  l: Layout;
  port: number;
  /** default: SQLite under <dataDir>/openstack/heat */
  databaseUrl?: string;
  sleepScale: number;
  conf: Omit<HeatConfInput, 'databaseUrl' | 'pasteIni'>;
  pinsHash: string;
  env: NodeJS.ProcessEnv;
  stdio?: number;
  log: (m: string) => void;
}

export const heatConfPath = (l: Layout) => path.join(l.heat, 'heat.conf');
/** Part of heat_all.py's command line, unique per dataDir: finds leftovers of earlier runs. */
export const heatMarker = (l: Layout) => `--config-file ${heatConfPath(l)} `; // more args always follow

export function heatDatabaseUrl(h: Pick<HeatInput, 'l' | 'databaseUrl'>): string {
  return h.databaseUrl ?? sqliteUrl(path.join(h.l.heat, 'heat.db'));
}

export async function prepareHeat(h: HeatInput): Promise<void> {
  const dbUrl = heatDatabaseUrl(h);
  const pasteIni = path.join(h.venv, 'etc', 'heat', 'api-paste.ini');
  writeIfChanged(heatConfPath(h.l), heatConf(h.l, { ...h.conf, databaseUrl: dbUrl, pasteIni }), 0o600);
  // db_sync is idempotent but costs ~3 s: only for a new database or a new Heat version
  const marker = path.join(h.l.heat, 'db_sync.done');
  const want = crypto.createHash('sha256').update(`${h.pinsHash}\n${dbUrl}\nautoincrement`).digest('hex');
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').trim() === want) return;
  const t0 = Date.now();
  await runTool('heat-manage db_sync', venvBin('heat-manage', h.venv), ['--config-file', heatConfPath(h.l), 'db_sync'], {
    env: h.env, cwd: h.l.heat, logFile: path.join(h.l.logs, 'heat-setup.log'),
  });
  if (!h.databaseUrl) {
    // SQLite reuses deleted ids, which Heat's schema does not expect (see the script)
    await runTool('sqlite_autoincrement.py', venvBin('python', h.venv), [path.join(__dirname, 'sqlite_autoincrement.py'), path.join(h.l.heat, 'heat.db')], {
      env: h.env, cwd: h.l.heat, logFile: path.join(h.l.logs, 'heat-setup.log'),
    });
  }
  fs.writeFileSync(marker, want + '\n');
  h.log(`heat: db_sync in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

export async function startHeat(h: HeatInput): Promise<Proc> {
  const t0 = Date.now();
  const p = spawnDetached({
    name: 'heat',
    cmd: venvBin('python', h.venv),
    args: [path.join(__dirname, 'heat_all.py'), '--config-file', heatConfPath(h.l), '--bind', '127.0.0.1', '--port', String(h.port)],
    cwd: h.l.heat,
    env: { ...h.env, HEAT_TASK_SLEEP_SCALE: String(h.sleepScale) },
    pidFile: h.l.heatPid,
    stdio: h.stdio,
    logFile: path.join(h.l.logs, 'heat-stdout.log'),
  });
  try {
    // GET / lists the API versions: 300 Multiple Choices
    await waitForStatus(`http://127.0.0.1:${h.port}/`, 300, 120_000, p, `${h.l.logs}/heat*.log`);
  } catch (e) {
    await stopProc(p, 0, 'SIGKILL'); // the whole group: a gunicorn worker too
    throw e;
  }
  h.log(`heat: pid ${p.pid}, first response after ${((Date.now() - t0) / 1000).toFixed(1)} s (HEAT_TASK_SLEEP_SCALE=${h.sleepScale})`);
  return p;
}
