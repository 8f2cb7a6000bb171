/**
 * A real, throw-away PostgreSQL (Debian's `postgresql` package) for the store
 * tests: initdb in a temporary directory, pg_ctl start on a free loopback
 * port (socket in the same directory), one database; stop() stops the server
 * and removes the directory, so nothing stays behind. As root the server
 * runs as the `postgres` user (initdb refuses root). When the binaries are
 * missing and we are root, scripts/install-test-deps.sh installs them.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../harness/ports';

const INSTALL_SCRIPT = path.resolve(__dirname, '../../scripts/install-test-deps.sh');
const DEBIAN_PG = '/usr/lib/postgresql';

export interface TestPostgres {
  /** URL of the database made at start. */
  url: string;
  dir: string;
  /** A new empty database on the same server; its URL. */
  newDatabase(): string;
  stop(): void;
}

/** The newest installed server's bin directory, or undefined. */
function findBinDir(): string | undefined {
  const versions = fs.existsSync(DEBIAN_PG) ? fs.readdirSync(DEBIAN_PG) : [];
  return versions
    .filter((v) => fs.existsSync(path.join(DEBIAN_PG, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => path.join(DEBIAN_PG, v, 'bin'))[0];
}

function ensureBinDir(): string {
  const found = findBinDir();
  if (found) return found;
  if (process.getuid?.() !== 0) throw new Error(`PostgreSQL is not installed (no ${DEBIAN_PG}/*/bin/initdb): run as root bash ${INSTALL_SCRIPT}`);
  execFileSync('bash', [INSTALL_SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
  const installed = findBinDir();
  if (!installed) throw new Error(`${INSTALL_SCRIPT} ran but initdb is still missing`);
  return installed;
}

export async function startPostgres(database = 'nfv'): Promise<TestPostgres> {
  const bin = ensureBinDir();
  const asRoot = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nfv-pg-'));
  if (asRoot) execFileSync('chown', ['postgres:', dir]);
  // As root, every PostgreSQL tool runs as the postgres user.
  const run = (tool: string, args: string[]) => asRoot
    ? execFileSync('runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    : execFileSync(path.join(bin, tool), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const data = path.join(dir, 'data');
  const port = await freePort();
  let started = false;
  const stop = () => {
    if (started) {
      try { run('pg_ctl', ['-D', data, 'stop', '-m', 'fast']); } catch { /* already down: the directory goes anyway */ }
      started = false;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync']);
    run('pg_ctl', ['-D', data, '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, '-l', path.join(dir, 'log'), 'start', '-w']);
    started = true;
    run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', database]);
  } catch (e) {
    const log = fs.existsSync(path.join(dir, 'log')) ? fs.readFileSync(path.join(dir, 'log'), 'utf8').slice(-2000) : '';
    stop();
    const err = e as Error & { stderr?: Buffer };
    throw new Error(`could not start PostgreSQL: ${err.stderr?.toString().slice(-2000) || err.message}\n${log}`);
  }
  const urlOf = (name: string) => `postgres://postgres@127.0.0.1:${port}/${name}`;
  let made = 0;
  const newDatabase = () => {
    const name = `${database}_${++made}`;
    run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', name]);
    return urlOf(name);
  };
  return { url: urlOf(database), dir, newDatabase, stop };
}
