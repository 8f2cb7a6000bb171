/**
 * The two long-running children (Keystone's gunicorn, heat_all.py): each in its
 * own session/process group, so a Ctrl-C at the terminal reaches only the Node
 * parent, which then stops them in order. Pid files let a later start on the
 * same dataDir kill what a crashed run left behind.
 */
import { spawn, ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

export interface Proc {
  name: string;
  pid: number;
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface SpawnSpec {
  name: string;
  cmd: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  pidFile: string;
  /** fd for stdout+stderr; else appended to logFile */
  stdio?: number;
  logFile: string;
}

export function spawnDetached(s: SpawnSpec): Proc {
  const fd = s.stdio ?? fs.openSync(s.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(s.cmd, s.args, { cwd: s.cwd, env: s.env, detached: true, stdio: ['ignore', fd, fd] });
  } finally {
    if (s.stdio === undefined) fs.closeSync(fd);
  }
  if (!child.pid) throw new Error(`could not start ${s.name} (${s.cmd})`);
  fs.writeFileSync(s.pidFile, String(child.pid));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  child.once('error', () => undefined); // exit follows; keeps an unhandled 'error' from crashing the parent
  return { name: s.name, pid: child.pid, child, exited };
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function running(p: Proc): boolean {
  return p.child.exitCode === null && p.child.signalCode === null;
}

/** Signals the process group led by pid, and pid itself (SIGKILL by default). Synchronous. */
export function killGroupSync(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal);
    } catch {
      /* already gone */
    }
  }
}

/** SIGTERM (or `signal`) to the whole group, SIGKILL after graceMs; resolves when the leader exited. */
export async function stopProc(p: Proc, graceMs = 10_000, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (running(p)) {
    killGroupSync(p.pid, signal);
    const t = setTimeout(() => killGroupSync(p.pid, 'SIGKILL'), graceMs);
    await p.exited;
    clearTimeout(t);
  }
  killGroupSync(p.pid, 'SIGKILL'); // e.g. a gunicorn worker that outlived its master
}

function cmdline(pid: number): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return undefined;
  }
}

/**
 * Kills processes left by an earlier run on this dataDir: the pid in pidFile and
 * any other process whose command line contains `marker` (an absolute path or
 * name unique to this dataDir), then removes the pid file.
 */
export async function killLeftovers(pidFile: string, marker: string, log: (m: string) => void): Promise<void> {
  const pids = new Set<number>();
  try {
    const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
    if (pid > 0 && cmdline(pid)?.includes(marker)) pids.add(pid);
  } catch {
    /* no pid file */
  }
  for (const d of fs.readdirSync('/proc')) {
    const pid = Number(d);
    if (pid > 0 && pid !== process.pid && cmdline(pid)?.includes(marker)) pids.add(pid);
  }
  for (const pid of pids) {
    log(`killing leftover process ${pid} of an earlier run (${marker})`);
    killGroupSync(pid, 'SIGKILL');
  }
  const deadline = Date.now() + 10_000;
  while ([...pids].some((p) => cmdline(p) !== undefined) && Date.now() < deadline) await sleep(100);
  fs.rmSync(pidFile, { force: true });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Fails fast when another program holds the port: otherwise we would talk to it. */
export async function assertPortFree(port: number, what: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', (e: NodeJS.ErrnoException) =>
      reject(new Error(`${what}: port 127.0.0.1:${port} is in use (${e.code}); pick another port`)),
    );
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve()));
  });
}

/** Polls url until it answers with `status`; rejects early if the process exits. */
export async function waitForStatus(url: string, status: number, timeoutMs: number, p: Proc, logHint: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let died: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void p.exited.then((r) => (died = r));
  for (;;) {
    if (died) throw new Error(`${p.name} exited (code ${died.code}, signal ${died.signal}) before answering; see ${logHint}`);
    try {
      const r = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(5_000) });
      await r.arrayBuffer();
      if (r.status === status) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`${p.name}: ${url} gave no ${status} within ${timeoutMs} ms; see ${logHint}`);
    await sleep(100);
  }
}

/** Runs a one-shot tool (db_sync, bootstrap) with output appended to logFile; rejects with the log's tail. */
export async function runTool(name: string, cmd: string, args: string[], o: { env: NodeJS.ProcessEnv; cwd: string; logFile: string }): Promise<void> {
  const fd = fs.openSync(o.logFile, 'a');
  const start = fs.fstatSync(fd).size;
  let child: ChildProcess;
  try {
    child = spawn(cmd, args, { cwd: o.cwd, env: o.env, stdio: ['ignore', fd, fd] });
  } finally {
    fs.closeSync(fd);
  }
  const code = await new Promise<number | null>((resolve) => {
    child.once('error', () => resolve(-1));
    child.once('exit', (c) => resolve(c));
  });
  if (code === 0) return;
  const out = fs.readFileSync(o.logFile, 'utf8').slice(start);
  throw new Error(`${name} failed (exit ${code}); ${o.logFile} ends with:\n${out.slice(-1500)}`);
}
