/** Keystone: config, first-time setup (once per dataDir), gunicorn process. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { keystoneConf } from './configs';
import { venvBin } from './install';
import { Proc, runTool, spawnDetached, stopProc, waitForStatus } from './procs';
import { Layout, writeIfChanged } from './state';

export const ADMIN_USER = 'admin';
export const ADMIN_PROJECT = 'admin';

export interface KeystoneInput {
  venv: string;
  l: Layout;
  port: number;
  tokenExpirationSec: number;
  pinsHash: string;
  /** The admin's password (common/embedded-admin.ts): bootstrapped, and set again when it changed. */
  adminPassword: string;
  env: NodeJS.ProcessEnv;
  stdio?: number;
  log: (m: string) => void;
}

const conf = (l: Layout) => path.join(l.keystone, 'keystone.conf');
/** gunicorn's proc name (setproctitle rewrites its argv): finds leftovers of this dataDir. */
export const keystoneMarker = (l: Layout) => `nfv-keystone@${l.root}@`; // closing @: /a is no prefix match of /ab

/**
 * Bootstraps a fresh dataDir (keys, schema, the admin user with its password,
 * roles admin/member/reader/service, identity endpoint, RegionOne). A later
 * start only re-runs db_sync when the pinned Keystone version changed, and
 * bootstrap when the admin password changed (ADMIN_PASSWORD set or changed:
 * bootstrap resets an existing admin's password). The markers are written
 * last, so a setup killed half-way is redone.
 */
export async function prepareKeystone(k: KeystoneInput): Promise<void> {
  writeIfChanged(conf(k.l), keystoneConf(k.l, { tokenExpirationSec: k.tokenExpirationSec }));
  const marker = path.join(k.l.keystone, 'bootstrap.done');
  const adminMarker = path.join(k.l.keystone, 'admin-password.sha256');
  const read = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8').trim() : undefined);
  const done = read(marker);
  const adminHash = crypto.createHash('sha256').update(k.adminPassword).digest('hex');
  const logFile = path.join(k.l.logs, 'keystone-setup.log');
  const t0 = Date.now();
  const url = `http://127.0.0.1:${k.port}/v3`;
  const bootstrap = () => runTool('keystone bootstrap', venvBin('python', k.venv), [
    path.join(__dirname, 'keystone_setup.py'), '--config-file', conf(k.l), 'bootstrap',
    '--bootstrap-username', ADMIN_USER,
    '--bootstrap-project-name', ADMIN_PROJECT, '--bootstrap-role-name', 'admin',
    '--bootstrap-service-name', 'keystone', '--bootstrap-region-id', 'RegionOne',
    '--bootstrap-admin-url', url, '--bootstrap-internal-url', url, '--bootstrap-public-url', url,
    // the password through the environment, never argv: `ps` shows argv to every user, and a password starting with '-' was taken for an option
  ], { env: { ...k.env, OS_BOOTSTRAP_PASSWORD: k.adminPassword }, cwd: k.l.keystone, logFile });
  if (done === undefined) {
    for (const f of ['keystone.db', 'keystone.db-journal', 'keystone.db-wal', 'keystone.db-shm', 'fernet-keys', 'credential-keys']) {
      fs.rmSync(path.join(k.l.keystone, f), { recursive: true, force: true });
    }
    await bootstrap();
    k.log(`keystone: keys + db_sync + bootstrap in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  } else {
    if (done !== k.pinsHash) {
      await runTool('keystone db_sync', venvBin('keystone-manage', k.venv), ['--config-file', conf(k.l), 'db_sync'], {
        env: k.env, cwd: k.l.keystone, logFile,
      });
      k.log(`keystone: db_sync after a version change in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
    if (read(adminMarker) !== adminHash) {
      await bootstrap();
      k.log('keystone: the admin password was set again (ADMIN_PASSWORD changed)');
    }
  }
  fs.writeFileSync(marker, k.pinsHash + '\n');
  fs.writeFileSync(adminMarker, adminHash + '\n', { mode: 0o600 });
}

export async function startKeystone(k: KeystoneInput): Promise<Proc> {
  const t0 = Date.now();
  const args = [
    '--pythonpath', __dirname, '--chdir', k.l.keystone,
    '--bind', `127.0.0.1:${k.port}`, '--workers', '1', '--threads', '4',
    // one worker: the dogpile memory cache is per process
    '--name', keystoneMarker(k.l), '--graceful-timeout', '5',
    // gunicorn >= 25 opens a control socket at ~/.gunicorn/gunicorn.ctl, shared by every gunicorn of the user
    '--no-control-socket',
    '--access-logfile', path.join(k.l.logs, 'keystone-access.log'),
    '--error-logfile', path.join(k.l.logs, 'keystone-gunicorn.log'),
    'keystone_wsgi:application',
  ];
  const p = spawnDetached({
    name: 'keystone', cmd: venvBin('gunicorn', k.venv), args, cwd: k.l.keystone,
    env: { ...k.env, OS_KEYSTONE_CONFIG_DIR: k.l.keystone, OS_KEYSTONE_CONFIG_FILES: 'keystone.conf' },
    pidFile: k.l.keystonePid, stdio: k.stdio, logFile: path.join(k.l.logs, 'keystone-stdout.log'),
  });
  try {
    await waitForStatus(`http://127.0.0.1:${k.port}/v3`, 200, 90_000, p, `${k.l.logs}/keystone*.log`);
  } catch (e) {
    await stopProc(p, 0, 'SIGKILL'); // the whole group: a gunicorn worker too
    throw e;
  }
  k.log(`keystone: pid ${p.pid}, first 200 after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return p;
}
