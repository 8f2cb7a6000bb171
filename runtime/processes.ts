/**
 * Child processes of the product (VIM simulator, worker, API), each a Node
 * process running TypeScript through tsx, so any one can be killed and
 * restarted on its own (the crash-safety tests do exactly that).
 */
import { spawn, ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from './temporal-cli';

export type Component = 'vimsim' | 'worker' | 'api';
const ENTRY: Record<Component, string> = { vimsim: 'vimsim/main.ts', worker: 'worker/main.ts', api: 'api/main.ts' };

export interface Child { name: Component; proc: ChildProcess; exited: Promise<number | null> }

export function startComponent(name: Component, env: NodeJS.ProcessEnv, stdio: 'inherit' | 'ignore' | number = 'inherit'): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, ENTRY[name])], {
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
    if (child && (child.proc.exitCode !== null || child.proc.signalCode !== null)) throw new Error(`${child.name} exited before ${url} answered`);
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
