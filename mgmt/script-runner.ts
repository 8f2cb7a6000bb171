/**
 * Runs a Mgmt Driver script shipped in the VNF package on the worker: the
 * file is written to a private temp dir, executed with a JSON document on
 * stdin, killed at its timeout; a non-zero exit fails the hook with its stderr.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { redactSecrets } from '../ssh';

const MAX_OUTPUT = 1024 * 1024;

export interface ScriptResult { code: number | null; stdout: string; stderr: string }

export async function runScript(file: string, content: Buffer, input: unknown, o: { timeoutMs: number; secrets: string[]; onTick?: () => void }): Promise<ScriptResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgmt-script-'));
  const exe = path.join(dir, path.basename(file));
  fs.writeFileSync(exe, content, { mode: 0o700 });
  try {
    return await new Promise<ScriptResult>((resolve, reject) => {
      const child = spawn(exe, [], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => { if (stdout.length < MAX_OUTPUT) stdout += d; });
      child.stderr.on('data', (d) => { if (stderr.length < MAX_OUTPUT) stderr += d; });
      const tick = setInterval(() => o.onTick?.(), 5000);
      const timer = setTimeout(() => {
        try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ }
        clearInterval(tick);
        reject(new Error(`${file} did not finish within ${o.timeoutMs / 1000} s and was killed`));
      }, o.timeoutMs);
      child.on('error', (e) => { clearTimeout(timer); clearInterval(tick); reject(e); });
      child.on('close', (code) => {
        clearTimeout(timer);
        clearInterval(tick);
        const clean = (t: string) => redactSecrets(t, o.secrets);
        resolve({ code, stdout: clean(stdout), stderr: clean(stderr) });
      });
      child.stdin.on('error', () => undefined); // a script that ignores stdin
      child.stdin.end(JSON.stringify(input));
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
