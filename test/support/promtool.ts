/**
 * Prometheus's own rule checker, promtool, from Debian's prometheus package
 * (scripts/install-test-deps.sh installs it when missing and we are root;
 * the Prometheus daemon is never started).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';

const INSTALL_SCRIPT = path.resolve(__dirname, '../../scripts/install-test-deps.sh');

function which(): string | undefined {
  const r = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

export function ensurePromtool(): string {
  const found = which();
  if (found) return found;
  if (process.getuid?.() !== 0) throw new Error(`promtool is missing: run as root bash ${INSTALL_SCRIPT}`);
  execFileSync('bash', [INSTALL_SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
  const installed = which();
  if (!installed) throw new Error(`${INSTALL_SCRIPT} ran but promtool is still missing`);
  return installed;
}

export function promtool(args: string[], cwd: string): { status: number | null; out: string } {
  const r = spawnSync(ensurePromtool(), args, { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}
