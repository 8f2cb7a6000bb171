/**
 * The real processes behind simulated static pods (etcd, kube-apiserver).
 * Each runs under `setpriv --pdeathsig TERM`, so it is told to stop when the
 * simulator dies however it dies; its pid is recorded next to its files in
 * DATA_DIR/vimsim/kube/<server>/, and a simulator that starts again kills
 * whatever a killed predecessor left (pid files, then any process whose
 * command line names the kube directory) before it removes the directory.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';

const STOP_GRACE_MS = 10_000;
const TAIL_BYTES = 16 * 1024;

let setprivAvailable: boolean | undefined;
function hasSetpriv(): boolean {
  setprivAvailable ??= spawnSync('setpriv', ['--help'], { stdio: 'ignore' }).status === 0;
  return setprivAvailable;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class RealProcess {
  readonly startedAt = Date.now();
  readonly exited: Promise<ProcessExit>;
  private exit?: ProcessExit;
  private stopping = false;

  private constructor(
    readonly name: string,
    private readonly proc: ChildProcess,
    readonly logFile: string,
    private readonly pidFile: string,
  ) {
    this.exited = new Promise((resolve) => {
      proc.once('exit', (code, signal) => {
        this.exit = { code, signal };
        fs.rmSync(pidFile, { force: true });
        resolve(this.exit);
      });
      proc.once('error', () => {
        this.exit ??= { code: 127, signal: null };
        fs.rmSync(pidFile, { force: true });
        resolve(this.exit);
      });
    });
  }

  /** Starts `argv` with output appended to `logFile`; the pid goes to `<dir>/<name>.pid`. */
  static start(name: string, argv: string[], dir: string, log: Logger): RealProcess {
    const logFile = path.join(dir, `${name}.log`);
    const out = fs.openSync(logFile, 'a', 0o600);
    const [cmd, ...args] = hasSetpriv() ? ['setpriv', '--pdeathsig', 'TERM', '--', ...argv] : argv;
    const proc = spawn(cmd, args, { cwd: dir, stdio: ['ignore', out, out], env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir } });
    fs.closeSync(out);
    const pidFile = path.join(dir, `${name}.pid`);
    if (proc.pid) fs.writeFileSync(pidFile, String(proc.pid), { mode: 0o600 });
    const rp = new RealProcess(name, proc, logFile, pidFile);
    log.info({ process: name, pid: proc.pid, dir }, 'control-plane process started');
    return rp;
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  get exitStatus(): ProcessExit | undefined {
    return this.exit;
  }

  /** Whether stop() was asked (an exit then is not a crash). */
  get stopRequested(): boolean {
    return this.stopping;
  }

  /** SIGTERM, then SIGKILL after the grace period; resolves once the process is gone. */
  async stop(graceMs = STOP_GRACE_MS): Promise<number> {
    this.stopping = true;
    if (this.exit) return 0;
    const t0 = Date.now();
    // no grace: the machine is gone (a deleted server), nothing gets to shut down
    this.proc.kill(graceMs === 0 ? 'SIGKILL' : 'SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
    return Date.now() - t0;
  }

  /** The last lines the process wrote (its "container log"). */
  tail(lines = 20): string[] {
    try {
      const fd = fs.openSync(this.logFile, 'r');
      try {
        const size = fs.fstatSync(fd).size;
        const len = Math.min(size, TAIL_BYTES);
        const buf = Buffer.alloc(len);
        fs.readSync(fd, buf, 0, len, size - len);
        return buf.toString('utf8').split('\n').filter(Boolean).slice(-lines);
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return [];
    }
  }
}

function cmdlineOf(pid: number): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return undefined;
  }
}

/** Processes whose command line names `dir` (what a killed simulator left running). */
export function processesUsing(dir: string): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    if (cmdlineOf(Number(entry))?.includes(`${dir}/`)) out.push(Number(entry));
  }
  return out;
}

/** Kills what a previous simulator on this data directory left behind and removes its files. */
export function reapStale(kubeDir: string, log: Logger): void {
  if (!fs.existsSync(kubeDir)) return;
  const pids = new Set<number>();
  for (const server of fs.readdirSync(kubeDir)) {
    const dir = path.join(kubeDir, server);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.pid'))) {
      const pid = Number(fs.readFileSync(path.join(dir, f), 'utf8'));
      if (pid > 0 && cmdlineOf(pid)?.includes(`${dir}/`)) pids.add(pid);
    }
  }
  for (const pid of processesUsing(kubeDir)) pids.add(pid);
  for (const pid of pids) {
    const cmdline = cmdlineOf(pid)?.slice(0, 200);
    try {
      process.kill(pid, 'SIGKILL');
      log.warn({ pid, cmdline }, 'killed a control-plane process left by a previous simulator');
    } catch {
      /* gone meanwhile */
    }
  }
  // SIGKILL is not instant: wait (briefly) until the ports are free.
  const deadline = Date.now() + 5000;
  while ([...pids].some((p) => Boolean(cmdlineOf(p))) && Date.now() < deadline) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  fs.rmSync(kubeDir, { recursive: true, force: true });
}
