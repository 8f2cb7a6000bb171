/**
 * Runs a script from a VNF package (a Mgmt Driver hook or a change_vnfpkg
 * coordinate script), on the scripts worker only, in the sandbox the worker
 * started with (mgmt/script-sandbox.ts):
 * - `namespaces`: in namespaces of its own (mgmt/script-jail.ts) as a uid of
 *   its own, reaching only its job's addresses (mgmt/script-bridge.ts);
 *   whatever it leaves running dies with it;
 * - `off`: in its own process group (killed whole when it ends), as a uid of
 *   its own when the product runs as root, else as the product's user.
 * Either way: an environment of its own (PATH, LANG, HOME and TMPDIR = its
 * private directory), killed at its timeout, limited in address space, CPU
 * time, file size and output per stream, no core dumps, and killed with the
 * scripts worker (parent-death signal). Output comes back masked
 * (mgmt/script-mask.ts), its last characters only.
 */
import { ApplicationFailure } from '@temporalio/common';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openBridge, type Bridge } from './script-bridge';
import type { ScriptJob, ScriptLimits, ScriptOutcome } from './script-channel';
import { JOB_HOME, SETUP_FAILED, SETUP_MARK, type JailSpec } from './script-jail';
import { maskScriptOutput } from './script-mask';
import type { Sandbox } from './script-sandbox';

/** What an outcome keeps of each stream (its end, where errors are). */
export const OUTPUT_EXCERPT = 4000;
const TICK_MS = 5000;
const DIR_PREFIX = 'nfv-script-';
/** Limits of jobs sealed before they were part of the job. */
const DEFAULT_CPU_S = 600;
const DEFAULT_FILE_BYTES = 256 * 1024 * 1024;
const DEFAULT_TMP_BYTES = 256 * 1024 * 1024;
const NPROC = 512;

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
 * Unsandboxed mode's group leader: starts the script with the stdin it was
 * given (fd 3, since an asynchronous list gets /dev/null), waits, and on
 * SIGTERM (the scripts worker died: parent-death signal) kills its whole
 * process group.
 */
const LEADER = 'trap "kill -s KILL 0" TERM\nexec 3<&0\n"$1" <&3 3<&- &\nexec 3<&-\nwait $!\n';

const fileName = (name: string) => path.basename(name).replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '') || 'script';
const kib = (n: number) => (n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`);

/** SIGXCPU at the limit (a script may trap it), SIGKILL a few seconds of CPU later. */
const cpu = (s: number) => `--cpu=${s}:${s + 5}`;

function rlimits(limits: ScriptLimits, ownUid: boolean): string[] {
  return [
    ...(limits.memoryBytes > 0 ? [`--as=${limits.memoryBytes}`] : []), '--core=0',
    cpu(limits.cpuSeconds ?? DEFAULT_CPU_S), `--fsize=${limits.fileBytes ?? DEFAULT_FILE_BYTES}`,
    ...(ownUid ? [`--nproc=${NPROC}`] : []),
  ];
}

/** node running mgmt/script-jail (TypeScript through tsx's require hook when this is not the compiled tree). */
function jailCommand(spec: JailSpec): string[] {
  const ext = path.extname(__filename);
  const file = path.join(__dirname, `script-jail${ext}`);
  return [process.execPath, ...(ext === '.ts' ? ['--require', require.resolve('tsx/cjs')] : []), file, JSON.stringify(spec)];
}

/** The command that runs the job, and what it needs open while it runs. */
async function prepare(job: ScriptJob, dir: string, sandbox: Sandbox, uid: number | undefined): Promise<{ argv: string[]; cwd: string; env: NodeJS.ProcessEnv; bridge?: Bridge }> {
  const base = { PATH: process.env.PATH || '/usr/local/bin:/usr/bin:/bin', LANG: process.env.LANG || 'C.UTF-8' };
  if (sandbox.mode === 'namespaces') {
    fs.writeFileSync(path.join(dir, 'script'), job.script, { mode: 0o600 });
    const reach = job.reach ?? [];
    const bridge = await openBridge(path.join(dir, 'bridge.sock'), reach);
    const spec: JailSpec = {
      dir, name: fileName(job.name), uid: uid!, reach, tmpBytes: job.limits.tmpBytes ?? DEFAULT_TMP_BYTES,
      rlimits: rlimits(job.limits, true), env: { ...base, HOME: JOB_HOME, TMPDIR: JOB_HOME },
    };
    const argv = ['setpriv', '--pdeathsig', 'KILL', '--', 'unshare', '--pid', '--net', '--mount', '--ipc', '--uts', '--fork', '--kill-child', '--mount-proc', '--', ...jailCommand(spec)];
    return { argv, cwd: dir, env: {}, bridge };
  }
  const exe = path.join(dir, fileName(job.name));
  fs.writeFileSync(exe, job.script, { mode: 0o700 });
  if (uid !== undefined) {
    fs.chownSync(dir, uid, uid);
    fs.chownSync(exe, uid, uid);
  }
  const who = uid !== undefined ? ['--reuid', String(uid), '--regid', String(uid), '--clear-groups'] : [];
  const argv = ['setpriv', '--pdeathsig', 'TERM', '--no-new-privs', ...who, '--', 'prlimit', ...rlimits(job.limits, uid !== undefined), '--', '/bin/sh', '-c', LEADER, 'nfv-script', exe];
  return { argv, cwd: dir, env: { ...base, HOME: dir, TMPDIR: dir } };
}

export async function runSandboxed(job: ScriptJob, o: { sandbox: Sandbox; signal?: AbortSignal; onTick?: () => void }): Promise<ScriptOutcome> {
  const { limits } = job;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${DIR_PREFIX}${process.pid}-`));
  const uid = o.sandbox.uids?.take();
  let bridge: Bridge | undefined;
  try {
    const cmd = await prepare(job, dir, o.sandbox, uid);
    bridge = cmd.bridge;
    return await new Promise<ScriptOutcome>((resolve, reject) => {
      const child = spawn(cmd.argv[0]!, cmd.argv.slice(1), { cwd: cmd.cwd, env: cmd.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
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
        else if (o.sandbox.mode === 'namespaces' && exited?.code === SETUP_FAILED && text('stderr').includes(SETUP_MARK)) {
          reject(ApplicationFailure.nonRetryable(`${job.name} could not be started: the sandbox could not be set up: ${text('stderr').trim().slice(-1000)}`, 'ScriptSandbox'));
        } else resolve({ exitCode: exited?.code ?? null, signal: exited?.signal ?? null, stdout: text('stdout'), stderr: text('stderr') });
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
    bridge?.close();
    if (uid !== undefined) o.sandbox.uids!.release(uid);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
