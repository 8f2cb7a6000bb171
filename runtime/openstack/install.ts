/**
 * Installs Keystone, Heat, Octavia (+ gunicorn, the openstack CLI) from PyPI into one
 * project-local venv, <project>/.tools/openstack/venv. Rebuilt only when the
 * pins change (stamp = hash of requirements.txt + constraints.txt) or the venv
 * is unusable (no stamp: a killed install; a vanished interpreter). Our Octavia
 * provider (octavia_provider/) is registered by a dist-info of its own with
 * the entry point, checked at every call.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { withBuildLock } from '../build-lock';

export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
export const OPENSTACK_TOOLS = path.join(PROJECT_ROOT, '.tools', 'openstack');
export const VENV = path.join(OPENSTACK_TOOLS, 'venv');
const REQUIREMENTS = path.join(__dirname, 'requirements.txt');
const CONSTRAINTS = path.join(__dirname, 'constraints.txt');
const STAMP = path.join(VENV, '.nfv-pins.sha256');
const LOCK = path.join(OPENSTACK_TOOLS, 'install.lock');
/** Executables the product runs; all must exist in a usable venv. */
const NEEDED = ['python', 'keystone-manage', 'heat-manage', 'octavia-api', 'gunicorn', 'openstack'];

export function pinsHash(): string {
  const h = crypto.createHash('sha256');
  for (const f of [REQUIREMENTS, CONSTRAINTS]) h.update(fs.readFileSync(f));
  return h.digest('hex');
}

export function venvBin(name: string, venv = VENV): string {
  return path.join(venv, 'bin', name);
}

function usable(hash: string): boolean {
  try {
    if (fs.readFileSync(STAMP, 'utf8').trim() !== hash) return false;
  } catch {
    return false;
  }
  if (!NEEDED.every((b) => fs.existsSync(venvBin(b)))) return false;
  // the venv links to a base interpreter that may have been removed/upgraded
  return spawnSync(venvBin('python'), ['-c', 'import sys'], { timeout: 30_000 }).status === 0;
}

/** A pip (or uv) of an install whose Node parent was SIGKILLed may still write into the venv. */
function killStrayPip(): void {
  const needles = [`${venvBin('python')} -m pip install`, `--python ${venvBin('python')}`];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (needles.some((n) => cmd.includes(n))) process.kill(Number(d), 'SIGKILL');
    } catch {
      /* gone or not ours */
    }
  }
}

function pythonForVenv(): string {
  return process.env.OPENSTACK_PYTHON || 'python3';
}

function build(hash: string, log: (m: string) => void): void {
  const t0 = Date.now();
  log(`installing Keystone, Heat and Octavia into ${VENV} (uv or pip: seconds to a few minutes) ...`);
  killStrayPip();
  fs.rmSync(VENV, { recursive: true, force: true });
  const py = pythonForVenv();
  const mk = spawnSync(py, ['-m', 'venv', VENV], { encoding: 'utf8' });
  if (mk.status !== 0) {
    throw new Error(
      `\`${py} -m venv\` failed (${mk.error?.message ?? mk.stderr.trim()}). ` +
        'Python 3.11 with venv support is needed (Debian: apt-get install python3-venv); ' +
        'OPENSTACK_PYTHON may name another interpreter.',
    );
  }
  const env = { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_INPUT: '1', PYTHONWARNINGS: 'ignore' };
  try {
    installWithUv(py, env);
  } catch (e) {
    log(`uv could not install the pins (${(e as Error).message.split('\n')[0].slice(0, 300)}); pip instead`);
    // nice: a cold install compiles a little and unpacks ~400 MB; keep the machine responsive
    execFileSync('nice', ['-n', '10', venvBin('python'), '-m', 'pip', 'install', '-q', '-r', REQUIREMENTS, '-c', CONSTRAINTS], {
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
      timeout: 30 * 60_000,
    });
  }
  fs.writeFileSync(STAMP, hash + '\n');
  log(`OpenStack venv ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/** uv (Astral's installer, from PyPI), pinned; beside the venv, so a rebuilt venv keeps it. */
const UV_VERSION = '0.13.9';
const UV_DIR = path.join(OPENSTACK_TOOLS, 'uv');

/**
 * The pins installed by uv: from its cache (hard links) where pip downloads and unpacks every wheel again, about
 * 100 s on 2 cores; bytecode compiled as pip does (the CLIs and services start from it). pip's settings carry over:
 * its find-links and its CA bundle.
 */
function installWithUv(py: string, env: NodeJS.ProcessEnv): void {
  const uv = path.join(UV_DIR, 'bin', 'uv');
  const quiet = { env, stdio: ['ignore', 'ignore', 'pipe'] as ('ignore' | 'pipe')[], timeout: 10 * 60_000 };
  if (spawnSync(uv, ['--version'], { encoding: 'utf8' }).stdout?.trim() !== `uv ${UV_VERSION}`) {
    fs.rmSync(UV_DIR, { recursive: true, force: true });
    execFileSync(py, ['-m', 'pip', 'install', '-q', '--target', UV_DIR, `uv==${UV_VERSION}`], quiet);
  }
  const uvEnv: NodeJS.ProcessEnv = {
    ...env,
    ...(env.PIP_FIND_LINKS && !env.UV_FIND_LINKS ? { UV_FIND_LINKS: env.PIP_FIND_LINKS } : {}),
    ...(env.PIP_CERT && !env.SSL_CERT_FILE ? { SSL_CERT_FILE: env.PIP_CERT } : {}),
  };
  execFileSync('nice', ['-n', '10', uv, 'pip', 'install', '--quiet', '--compile-bytecode', '--python', venvBin('python'), '-r', REQUIREMENTS, '-c', CONSTRAINTS], { ...quiet, env: uvEnv, timeout: 30 * 60_000 });
}

/**
 * Octavia finds provider (and network) drivers by entry point; the package itself is imported from this directory (octavia_api.py runs from it).
 */
const PROVIDER_DIST = 'nfv_octavia_provider-1.0.dist-info';
const PROVIDER_FILES: Record<string, string> = {
  METADATA: 'Metadata-Version: 2.1\nName: nfv-octavia-provider\nVersion: 1.0\n',
  'entry_points.txt':
    '[octavia.api.drivers]\nvimsim = octavia_provider.driver:SimulatorProviderDriver\n' +
    '[octavia.network.drivers]\nvimsim_network_noop = octavia_provider.network:NetworkDriver\n',
  INSTALLER: 'nfv\n',
};

function registerOctaviaProvider(): void {
  const lib = path.join(VENV, 'lib');
  for (const py of fs.readdirSync(lib).filter((d) => d.startsWith('python'))) {
    const dist = path.join(lib, py, 'site-packages', PROVIDER_DIST);
    for (const [name, content] of Object.entries(PROVIDER_FILES)) {
      const file = path.join(dist, name);
      if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === content) continue;
      fs.mkdirSync(dist, { recursive: true });
      fs.writeFileSync(file, content);
    }
  }
}

/** Returns the venv path; installs or rebuilds it when needed. Idempotent. */
export function ensureOpenStackInstalled(log: (m: string) => void = () => undefined): string {
  const hash = pinsHash();
  if (!usable(hash)) {
    withBuildLock(LOCK, 'OpenStack install', () => {
      if (!usable(hash)) build(hash, log); // someone else may have built it meanwhile
    }, log);
  }
  registerOctaviaProvider();
  return VENV;
}
