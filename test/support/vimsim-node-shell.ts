/**
 * What the simulator's machine tests do on a node over SSH and to its
 * cluster with the real kubectl: run a command (`sh`), insist on exit 0
 * (`must`), write a file as the product does, through stdin (`put`), wait
 * for something (`until`), and read the nodes' Ready conditions.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Client } from 'ssh2';
import { sshExec, type ExecResult } from './vimsim-ssh-helpers';

const run = promisify(execFile);

export interface ShellNode { name: string; ssh: Client }

export const sh = (n: ShellNode, command: string, stdin?: string): Promise<ExecResult> => sshExec(n.ssh, command, stdin === undefined ? {} : { stdin });

export async function must(n: ShellNode, command: string, stdin?: string): Promise<ExecResult> {
  const r = await sh(n, command, stdin);
  if (r.code !== 0) throw new Error(`${n.name}: \`${command}\` exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** Writes a file as the product does: through stdin, never on the command line. */
export const put = (n: ShellNode, file: string, text: string, mode = '0644') => must(n, `sudo mkdir -p ${path.dirname(file)} && sudo tee ${file} >/dev/null && sudo chmod ${mode} ${file}`, text);

export async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The real kubectl with a kubeconfig; never throws (exit code and output). */
export async function kubectlRun(bin: string, conf: string, ...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const r = await run(bin, ['--kubeconfig', conf, '--request-timeout=5s', ...args], { encoding: 'utf8' });
    return { code: 0, out: r.stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: typeof e.code === 'number' ? e.code : 1, out: `${e.stdout}${e.stderr}` };
  }
}

/** Each node's Ready condition ({} while the API does not answer). */
export async function nodeReadiness(bin: string, conf: string): Promise<Record<string, string>> {
  const r = await kubectlRun(bin, conf, 'get', 'nodes', '-o', 'json');
  if (r.code !== 0) return {};
  const items = (JSON.parse(r.out) as { items: { metadata: { name: string }; status: { conditions: { type: string; status: string }[] } }[] }).items;
  return Object.fromEntries(items.map((i) => [i.metadata.name, i.status.conditions.find((c) => c.type === 'Ready')?.status ?? '']));
}
