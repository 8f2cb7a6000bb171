/**
 * Runs a script from a VNF package (a Mgmt Driver hook or a change_vnfpkg
 * coordinate script), on the scripts worker only, isolated:
 * - as an unprivileged user (SCRIPTS_USER, default `nobody`, its own group)
 *   when the product runs as root; no supplementary groups, no new
 *   privileges (setuid programs do not elevate);
 * - with an environment of its own: PATH, LANG, HOME and TMPDIR = a fresh
 *   private temp directory (its working directory, removed afterwards);
 * - limited: killed at its timeout, memory (address space, prlimit --as),
 *   no core dumps, output per stream (beyond it the script is killed);
 * - in its own process group, killed whole when the script ends, times out,
 *   overflows, is cancelled, or when the scripts worker dies (the group's
 *   leader gets SIGTERM from the kernel and kills the group).
 * Output comes back masked (mgmt/script-mask.ts), its last characters only.
 */
import { ApplicationFailure } from '@temporalio/common';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ScriptJob, ScriptOutcome } from './script-channel';
import { maskScriptOutput } from './script-mask';

/** What an outcome keeps of each stream (its end, where errors are). */
export const OUTPUT_EXCERPT = 4000;
const TICK_MS = 5000;
const DIR_PREFIX = 'nfv-script-';

export interface RunAs { user: string; uid: number; gid: number }

/**
 * Who scripts run as: undefined when the product does not run as root
 * (scripts then run as the product's user, still in the sandbox), else
 * SCRIPTS_USER (default nobody) with its primary group. Root is refused.
 */
export function scriptsRunAs(env: NodeJS.ProcessEnv = process.env): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const user = env.SCRIPTS_USER || 'nobody';
  let uid: number;
  let gid: number;
  try {
    uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
    gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
  } catch {
    throw new Error(`SCRIPTS_USER "${user}" is not an account on this host`);
  }
  if (!Number.isInteger(uid) || !Number.isInteger(gid) || uid === 0 || gid === 0) throw new Error(`SCRIPTS_USER "${user}" must be an unprivileged account (uid ${uid}, gid ${gid})`);
  return { user, uid, gid };
}

/** setpriv and prlimit (util-linux) are what the sandbox is made of: checked when the scripts worker starts. */
export function checkSandboxTools(): void {
  for (const tool of ['setpriv', 'prlimit']) {
    try {
      execFileSync(tool, ['--version'], { stdio: 'ignore' });
    } catch {
      throw new Error(`${tool} (util-linux) is needed to run package scripts and was not found on PATH`);
    }
  }
}

/** Temp directories left by a scripts worker that died (kill -9): its pid is in the name. */
export function removeStaleScriptDirs(root = os.tmpdir()): void {
  for (const name of fs.readdirSync(root)) {
    const pid = Number(new RegExp(`^${DIR_PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
      continue; // its scripts worker still runs
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EPERM') continue;
    }
    fs.rmSync(path.join(root, name), { recursive: true, force: true });
  }
}

/**
 * The group leader: starts the script with the stdin it was given (fd 3,
 * since an asynchronous list gets /dev/null), waits, and on SIGTERM (the
 * scripts worker died: parent-death signal) kills its whole process group.
 */
const LEADER = 'trap "kill -s KILL 0" TERM\nexec 3<&0\n"$1" <&3 3<&- &\nexec 3<&-\nwait $!\n';

const fileName = (name: string) => path.basename(name).replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '') || 'script';
const kib = (n: number) => (n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`);

export async function runSandboxed(job: ScriptJob, o: { runAs?: RunAs; signal?: AbortSignal; onTick?: () => void } = {}): Promise<ScriptOutcome> {
  const { limits } = job;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${DIR_PREFIX}${process.pid}-`));
  try {
    const exe = path.join(dir, fileName(job.name));
    fs.writeFileSync(exe, job.script, { mode: 0o700 });
    if (o.runAs) {
      fs.chownSync(dir, o.runAs.uid, o.runAs.gid);
      fs.chownSync(exe, o.runAs.uid, o.runAs.gid);
    }
    const env = { PATH: process.env.PATH || '/usr/local/bin:/usr/bin:/bin', LANG: process.env.LANG || 'C.UTF-8', HOME: dir, TMPDIR: dir };
    const args = [
      '--pdeathsig', 'TERM', '--no-new-privs', '--',
      'prlimit', ...(limits.memoryBytes > 0 ? [`--as=${limits.memoryBytes}`] : []), '--core=0', ...(o.runAs ? ['--nproc=1024'] : []), '--',
      '/bin/sh', '-c', LEADER, 'nfv-script', exe,
    ];
    return await new Promise<ScriptOutcome>((resolve, reject) => {
      const child = spawn('setpriv', args, {
        cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true,
        ...(o.runAs ? { uid: o.runAs.uid, gid: o.runAs.gid } : {}),
      });
      const out = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
      const size = { stdout: 0, stderr: 0 };
      let failure: (() => Error) | undefined; // set once: why the script was killed (the error is made when it has ended)
      let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      const killGroup = () => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } };
      /** Kills the script; output over its limit counts even when it arrives after the script ended. */
      const stop = (e: () => Error, evenAfterExit = false) => {
        if (failure || (exited && !evenAfterExit)) return;
        failure = e;
        killGroup();
      };
      const text = (s: 'stdout' | 'stderr') => {
        const all = Buffer.concat(out[s]).toString('utf8');
        return maskScriptOutput(all, job.secrets, { truncated: size[s] > limits.outputBytes }).slice(-OUTPUT_EXCERPT);
      };
      /** What the script printed last (stderr, else stdout; not a stream that overflowed), for the operator. */
      const lastWords = (skip?: 'stdout' | 'stderr') => {
        const t = (skip !== 'stderr' ? text('stderr').trim() : '') || (skip !== 'stdout' ? text('stdout').trim() : '');
        return t ? `; its output ended: ${t.slice(-1000)}` : '';
      };
      const limitFailure = (message: string, type: string, skip?: 'stdout' | 'stderr') => () => ApplicationFailure.nonRetryable(`${message}${lastWords(skip)}`, type);
      for (const s of ['stdout', 'stderr'] as const) {
        child[s].on('data', (d: Buffer) => {
          const room = limits.outputBytes - size[s];
          if (room > 0) out[s].push(d.subarray(0, room));
          size[s] += d.length;
          if (size[s] > limits.outputBytes) stop(limitFailure(`${job.name} wrote more than ${kib(limits.outputBytes)} to ${s} and was killed`, 'ScriptOutputLimit', s), true);
        });
      }
      const tick = setInterval(() => o.onTick?.(), TICK_MS);
      const timer = setTimeout(() => stop(limitFailure(`${job.name} did not finish within ${limits.timeoutMs / 1000} s and was killed`, 'ScriptTimeout')), limits.timeoutMs);
      const onAbort = () => stop(() => (o.signal?.reason instanceof Error ? o.signal.reason : new Error(`${job.name} was cancelled`)));
      if (o.signal?.aborted) onAbort(); else o.signal?.addEventListener('abort', onAbort);
      let settled = false;
      const settle = () => {
        if (settled) return;
        settled = true;
        clearInterval(tick);
        clearTimeout(timer);
        o.signal?.removeEventListener('abort', onAbort);
        if (failure) reject(failure());
        else resolve({ exitCode: exited?.code ?? null, signal: exited?.signal ?? null, stdout: text('stdout'), stderr: text('stderr') });
      };
      child.on('error', (e) => { stop(() => new Error(`${job.name} could not be started: ${e.message}`)); settle(); });
      child.on('exit', (code, signal) => {
        exited = { code, signal };
        killGroup(); // what the script left running in the background goes with it
        // Output still buffered in the pipes arrives before 'close'; a process that left the group could hold them open.
        const grace = setTimeout(() => { child.stdout.destroy(); child.stderr.destroy(); settle(); }, 2000);
        child.once('close', () => { clearTimeout(grace); settle(); });
      });
      child.stdin.on('error', () => undefined); // a script that ignores stdin
      child.stdin.end(job.stdin);
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
