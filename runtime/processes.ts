/**
 * Child processes of the product (VIM simulator, worker, scripts worker,
 * API), each a Node process of its own, so any one can be killed and
 * restarted on its own (the crash-safety tests do exactly that). They run
 * the TypeScript through tsx, or, with COMPILED_TREE set in the starting
 * process (npm test sets it: scripts/compile-tree.ts), its compiled
 * JavaScript with plain node.
 */
import { spawn, ChildProcess } from 'node:child_process';
import path from 'node:path';
import { CHANNEL_KEY_ENV, scriptChannelKeyFor } from '../mgmt/script-channel';
import { PROJECT_ROOT } from './temporal-cli';

export type Component = 'vimsim' | 'worker' | 'scripts-worker' | 'api';
const ENTRY: Record<Component, string> = {
  vimsim: 'vimsim/main.ts', worker: 'worker/main.ts', 'scripts-worker': 'worker/scripts-main.ts', api: 'api/main.ts',
};

/** What the scripts worker is told: the product's env (`env`) narrowed to these names and prefixes. */
const SCRIPTS_WORKER_ENV = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'HOME', 'TMPDIR', 'NODE_OPTIONS', 'TASK_QUEUE', 'LOG_LEVEL'];
const SCRIPTS_WORKER_PREFIXES = ['TEMPORAL_', 'SCRIPTS_'];

/**
 * The scripts worker's environment: Temporal's address (and TLS settings),
 * the task queue, logging, SCRIPTS_* settings, and the channel key derived
 * from this installation's SECRET_KEY (read from `env` or DATA_DIR/secret.key
 * here, by the starting process). No SECRET_KEY, no DATA_DIR, no OS_*, nothing else.
 */
export function scriptsWorkerEnv(env: NodeJS.ProcessEnv, dataDir: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && (SCRIPTS_WORKER_ENV.includes(k) || SCRIPTS_WORKER_PREFIXES.some((p) => k.startsWith(p)))) out[k] = v;
  }
  out[CHANNEL_KEY_ENV] = scriptChannelKeyFor(dataDir, env).toString('base64');
  return out;
}

export interface Child { name: Component; proc: ChildProcess; exited: Promise<number | null> }

export function startComponent(name: Component, env: NodeJS.ProcessEnv, stdio: 'inherit' | 'ignore' | number = 'inherit'): Child {
  const tree = process.env.COMPILED_TREE;
  const args = tree ? ['--enable-source-maps', path.join(tree, ENTRY[name].replace(/\.ts$/, '.js'))] : ['--import', 'tsx', path.join(PROJECT_ROOT, ENTRY[name])];
  const proc = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT, env, stdio: ['ignore', stdio, stdio],
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return { name, proc, exited };
}

export async function stopComponent(c: Child, graceMs = 15_000): Promise<void> {
  if (c.proc.exitCode !== null || c.proc.signalCode !== null) return;
  c.proc.kill('SIGTERM');
  const t = setTimeout(() => c.proc.kill('SIGKILL'), graceMs);
  await c.exited;
  clearTimeout(t);
}

export async function waitForHttp(url: string, timeoutMs: number, child?: Child): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && (child.proc.exitCode !== null || child.proc.signalCode !== null)) {
      throw new Error(`${child.name} exited (code ${child.proc.exitCode}, signal ${child.proc.signalCode}) before ${url} answered`);
    }
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
