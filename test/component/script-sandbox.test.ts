/**
 * The package-script sandbox (SCRIPTS_SANDBOX=namespaces) with real
 * namespaces, uids and limits: what a hostile script tries from inside,
 * and what is left of it afterwards. Needs root, as the sandbox does (the
 * scripts worker refuses to start without it unless SCRIPTS_SANDBOX=off).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { ScriptJob } from '../../mgmt/script-channel';
import { runSandboxed } from '../../mgmt/script-runner';
import { UidPool, type Sandbox } from '../../mgmt/script-sandbox';
import { processesWith } from '../support/scripts';

const asRoot = process.getuid?.() === 0;
const UIDS = { first: 200900, last: 200909 };
const sandbox: Sandbox = { mode: 'namespaces', uids: new UidPool(UIDS.first, UIDS.last) };

const job = (script: string, o: Partial<ScriptJob> = {}): ScriptJob => ({
  name: 'Scripts/t.sh', script: Buffer.from(`#!/bin/sh\n${script}\n`), stdin: '{"hello":"in"}', secrets: [],
  limits: { timeoutMs: 30_000, memoryBytes: 0, outputBytes: 64 * 1024, cpuSeconds: 60, fileBytes: 8 * 1024 * 1024, tmpBytes: 16 * 1024 * 1024 },
  ...o,
});
const run = (j: ScriptJob) => runSandboxed(j, { sandbox });

/** A loopback HTTP server that counts what reaches it. */
async function server(host: string, answer: string) {
  let hits = 0;
  const s = http.createServer((_q, r) => { hits++; r.end(answer); });
  await new Promise<void>((resolve) => s.listen(0, host, resolve));
  return { port: (s.address() as AddressInfo).port, hits: () => hits, close: () => new Promise((r) => s.close(r)) };
}

const onlyAsRoot = asRoot ? describe : describe.skip;

onlyAsRoot('package scripts in namespaces', () => {
  test('stdin reaches the script and its exit code comes back', async () => {
    const r = await run(job('cat; echo; echo "to stderr" >&2; exit 3'));
    expect(r).toMatchObject({ exitCode: 3, stdout: '{"hello":"in"}\n', stderr: 'to stderr\n' });
  });

  test('nothing it starts outlives it: setsid, double fork, nohup', async () => {
    const r = await run(job([
      'setsid sleep 3571 </dev/null >/dev/null 2>&1 &',
      '(sleep 3572 </dev/null >/dev/null 2>&1 &)',
      'nohup sleep 3573 </dev/null >/dev/null 2>&1 &',
      'sleep 0.2; ps -e -o comm= | grep -c sleep',
    ].join('\n')));
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe('3');
    // the pid namespace went with the script: nothing to wait for
    expect(processesWith('sleep 357')).toEqual([]);
  });

  test('it reaches its own endpoints and nothing else on this host', async () => {
    const own = await server('127.0.0.3', 'vnfc answered');
    const hostService = await server('127.0.0.1', 'host service answered');
    try {
      const r = await run(job([
        `curl -sS --max-time 5 http://127.0.0.3:${own.port}/; echo " own=$?"`,
        `curl -sS --max-time 5 http://127.0.0.1:${hostService.port}/; echo " host=$?"`,
        `curl -sS --max-time 5 http://127.0.0.3:${hostService.port}/; echo " other-port=$?"`,
      ].join('\n'), { reach: [{ host: '127.0.0.3', port: own.port }] }));
      expect(r.stdout).toContain('vnfc answered own=0');
      expect(r.stdout).toContain(' host=7'); // connection refused: the host's loopback is not in its network
      expect(r.stdout).toContain(' other-port=7');
      expect(r.stdout).not.toContain('host service answered');
      expect([own.hits(), hostService.hits()]).toEqual([1, 0]);
    } finally {
      await own.close();
      await hostService.close();
    }
  });

  test('a uid of its own per job, no groups, a private /tmp', async () => {
    const marker = path.join(os.tmpdir(), `host-file-${process.pid}`);
    fs.writeFileSync(marker, 'host', { mode: 0o644 });
    try {
      const script = `id -u; id -G; ls -A /tmp; cat ${marker} 2>&1; echo "home=$HOME"; sleep 1`;
      const [a, b] = await Promise.all([run(job(script)), run(job(script))]);
      const uidOf = (out: string) => Number(out.split('\n')[0]);
      expect(uidOf(a.stdout)).not.toBe(uidOf(b.stdout));
      for (const r of [a, b]) {
        const [uid, groups, tmp] = r.stdout.split('\n');
        expect(Number(uid)).toBeGreaterThanOrEqual(UIDS.first);
        expect(Number(uid)).toBeLessThanOrEqual(UIDS.last);
        expect(groups).toBe(uid); // its own gid only
        expect(tmp).toBe('job');
        expect(r.stdout).toContain('No such file or directory');
        expect(r.stdout).toContain('home=/tmp/job');
      }
    } finally {
      fs.rmSync(marker);
    }
  });

  test('CPU time, file size and /tmp size are capped', async () => {
    const limits = { ...job('').limits, cpuSeconds: 1, fileBytes: 1024 * 1024, tmpBytes: 2 * 1024 * 1024 };
    const cpu = await run(job('while :; do :; done', { limits }));
    expect(cpu.exitCode).toBe(128 + os.constants.signals.SIGXCPU);
    const file = await run(job('dd if=/dev/zero of=big bs=64k count=32 2>&1; echo "dd=$?"', { limits }));
    expect(file.stdout).toMatch(/dd=153/); // SIGXFSZ at 1 MiB
    const tmp = await run(job('for i in 1 2 3; do dd if=/dev/zero of=/tmp/f$i bs=64k count=15 2>/dev/null || echo "full at $i"; done', { limits }));
    expect(tmp.stdout).toMatch(/full at [23]/);
  });

  test('without root the scripts worker refuses to start, unless SCRIPTS_SANDBOX=off, and then says what that gives up', () => {
    const code = `const { sandboxFromEnv } = require(${JSON.stringify(path.resolve(__dirname, '../../mgmt/script-sandbox.ts'))});
      try { const s = sandboxFromEnv(process.env, (m) => console.log('WARN ' + m)); console.log('MODE ' + s.mode + (s.uids ? ' uids' : ' own user')); }
      catch (e) { console.log('REFUSED ' + e.message); }`;
    const asUser = (env: Record<string, string>) => execFileSync('setpriv', ['--reuid', '200950', '--regid', '200950', '--clear-groups', '--',
      process.execPath, '--require', require.resolve('tsx/cjs'), '-e', code], { encoding: 'utf8', env: { PATH: process.env.PATH!, ...env }, cwd: '/' });
    try {
      expect(asUser({})).toMatch(/^REFUSED .*needs root; run it as root, or set SCRIPTS_SANDBOX=off/);
      const off = asUser({ SCRIPTS_SANDBOX: 'off' });
      expect(off).toMatch(/WARN SCRIPTS_SANDBOX=off: package scripts run WITHOUT namespaces as this user/);
      expect(off).toMatch(/MODE off own user/);
    } finally {
      fs.rmSync(path.join(os.tmpdir(), 'tsx-200950'), { recursive: true, force: true }); // tsx's cache for that uid
    }
  });
});
