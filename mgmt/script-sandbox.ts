/**
 * How the scripts worker isolates package scripts (README, "Package scripts:
 * the sandbox"), chosen when it starts:
 * - `namespaces` (the default, needs root): each job in its own pid, network,
 *   mount, IPC and UTS namespaces (mgmt/script-jail.ts), as a uid of its own
 *   from SCRIPTS_UIDS;
 * - `off`: no namespaces, for a product that cannot run as root; the
 *   operator has to ask for it (SCRIPTS_SANDBOX=off) and is told what it
 *   gives up, at every start.
 */
import { execFileSync } from 'node:child_process';

export type SandboxMode = 'namespaces' | 'off';

export interface Sandbox {
  mode: SandboxMode;
  /** Root: every job runs as a uid of its own from this pool. Not root (mode off only): the product's own user. */
  uids?: UidPool;
}

/** Uids handed to jobs, one per running job, round robin (a uid is not given again while its job runs). */
export class UidPool {
  private next = 0;
  private readonly busy = new Set<number>();

  constructor(readonly first: number, readonly last: number) {}

  take(): number {
    const size = this.last - this.first + 1;
    for (let i = 0; i < size; i++) {
      const uid = this.first + ((this.next + i) % size);
      if (this.busy.has(uid)) continue;
      this.busy.add(uid);
      this.next = (uid - this.first + 1) % size;
      return uid;
    }
    throw new Error(`every uid of SCRIPTS_UIDS (${this.first}-${this.last}) is taken by a running script`);
  }

  release(uid: number): void {
    this.busy.delete(uid);
  }
}

/** SCRIPTS_UIDS: "first-last", unprivileged, unused by accounts of this host (checked at start). */
export function uidRangeFromSetting(raw: string | undefined): { first: number; last: number } {
  const m = /^(\d+)-(\d+)$/.exec((raw ?? '').trim() || '200000-200999');
  const first = Number(m?.[1]);
  const last = Number(m?.[2]);
  if (!m || first < 1000 || last < first || last > 4_000_000_000) throw new Error(`SCRIPTS_UIDS must be "first-last" with 1000 <= first <= last, got "${raw}"`);
  return { first, last };
}

export function sandboxModeFromSetting(raw: string | undefined): SandboxMode {
  const v = (raw ?? '').trim() || 'namespaces';
  if (v !== 'namespaces' && v !== 'off') throw new Error(`SCRIPTS_SANDBOX must be "namespaces" or "off", got "${raw}"`);
  return v;
}

/** The tools the sandbox is made of (util-linux and iproute2), checked when the scripts worker starts. */
function checkTools(mode: SandboxMode): void {
  for (const [tool, arg] of [['setpriv', '--version'], ['prlimit', '--version'], ...(mode === 'namespaces' ? [['unshare', '--version'], ['ip', '-V']] : [])]) {
    try {
      execFileSync(tool, [arg], { stdio: 'ignore' });
    } catch {
      throw new Error(`${tool} is needed to run package scripts (SCRIPTS_SANDBOX=${mode}) and was not found on PATH`);
    }
  }
}

/** A uid of the range that is an account here would share files with it: refused. */
function checkUidsUnused(first: number, last: number): void {
  let passwd = '';
  try {
    passwd = execFileSync('getent', ['passwd'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  } catch { /* no getent: nothing to compare with */ }
  const taken = passwd.split('\n').map((l) => l.split(':')).find((f) => Number(f[2]) >= first && Number(f[2]) <= last);
  if (taken) throw new Error(`SCRIPTS_UIDS ${first}-${last} holds the uid of account "${taken[0]}" (${taken[2]}): choose a range no account uses`);
}

/**
 * The sandbox of this scripts worker, from its environment. Without root
 * only `off` can work: anything else refuses to start, naming the setting.
 * `warn` hears what `off` gives up.
 */
export function sandboxFromEnv(env: NodeJS.ProcessEnv, warn: (msg: string) => void): Sandbox {
  const mode = sandboxModeFromSetting(env.SCRIPTS_SANDBOX);
  const root = process.getuid?.() === 0;
  checkTools(mode);
  if (!root && mode !== 'off') {
    throw new Error('the scripts worker runs package scripts in namespaces, as uids of their own, which needs root; '
      + 'run it as root, or set SCRIPTS_SANDBOX=off to run them unsandboxed as this user (README, "Package scripts: the sandbox")');
  }
  if (mode === 'off') {
    warn(`SCRIPTS_SANDBOX=off: package scripts run WITHOUT namespaces${root ? '' : ' as this user, reading what it reads'}: `
      + 'they reach every service of this host (Keystone, Temporal, the simulator) and every network, share /tmp, '
      + 'and what they start in the background can outlive them. Use it only where every package is trusted.');
  }
  if (!root) return { mode };
  const { first, last } = uidRangeFromSetting(env.SCRIPTS_UIDS);
  checkUidsUnused(first, last);
  return { mode, uids: new UidPool(first, last) };
}
