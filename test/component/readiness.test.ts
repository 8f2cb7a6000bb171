/**
 * Readiness (infra/readiness.ts) and the worker's probe port
 * (worker/probes.ts) against real dependencies: a Temporal dev server that
 * stops and comes back on the same port and database, the SQLite store, and
 * HTTP servers standing in for Keystone's answers. The API's /readyz is the
 * same checks behind a route (test/e2e/identity.test.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import pino from 'pino';
import { openStore, type Store } from '../../store';
import { keystoneCheck, probeAnswer, readiness, sharedProbe, storeCheck, temporalCheck } from '../../infra/readiness';
import { findTemporalCli } from '../../runtime/temporal-cli';
import { startProbeServer } from '../../worker/probes';
import { freePort } from '../harness/ports';
import { freeStablePort } from '@nfv-orchestrator/lib/free-port';

const log = pino({ level: 'silent' });
let dir: string;
let store: Store;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'readiness-'));
  store = await openStore({ dataDir: path.join(dir, 'data') });
});
afterAll(async () => {
  await store?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A Temporal dev server on a fixed port and database file, so that it can be stopped and started again as the same server. */
function devServer(port: number): { start(): Promise<void>; stop(): Promise<void> } {
  const cli = findTemporalCli();
  if (!cli) throw new Error('the Temporal CLI is not installed (npm run setup installs it under .tools/temporal)');
  let proc: ChildProcess | undefined;
  return {
    async start() {
      const p = spawn(cli, ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--headless', '--db-filename', path.join(dir, 'temporal.db'), '--log-level', 'error'], { stdio: ['ignore', 'ignore', 'pipe'] });
      proc = p;
      let stderr = '';
      p.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-2000); });
      const deadline = Date.now() + 30_000;
      for (;;) {
        const c = await Connection.connect({ address: `127.0.0.1:${port}`, connectTimeout: 1000 }).catch(() => undefined);
        if (c) { await c.close(); return; }
        // CI #56 saw it not answer for 30 s: say whether it exited, and why
        if (p.exitCode !== null || p.signalCode !== null) throw new Error(`the Temporal dev server exited (${p.exitCode ?? p.signalCode}) on port ${port}: ${stderr.trim() || 'no output'}`);
        if (Date.now() > deadline) throw new Error(`the Temporal dev server did not answer on port ${port} within 30 s: ${stderr.trim() || 'no output'}`);
        await sleep(200);
      }
    },
    async stop() {
      if (!proc || proc.exitCode !== null) return;
      const exited = new Promise((r) => proc!.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

/** An HTTP server answering every request with `status`. */
async function answering(status: number): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => { res.writeHead(status, { 'content-type': 'application/json' }).end('{}'); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/v3`, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

test('Temporal: unready while its server is stopped, ready again when it returns, and never slower than the bound', async () => {
  // started again on the same port: one no other process's outgoing connection can take meanwhile (CI #56)
  const port = await freeStablePort();
  const temporal = devServer(port);
  await temporal.start();
  const connection = await Connection.connect({ address: `127.0.0.1:${port}` });
  const client = new Client({ connection });
  try {
    expect(await readiness([temporalCheck(client), storeCheck(store)])).toEqual({ ready: true, checks: { temporal: 'ok', store: 'ok' } });
    await temporal.stop();
    const started = Date.now();
    const down = await readiness([temporalCheck(client), storeCheck(store)], 1500);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(down.ready).toBe(false);
    expect(down.checks.store).toBe('ok');
    expect(down.checks.temporal).not.toBe('ok');
    await temporal.start();
    let back = await readiness([temporalCheck(client)]);
    for (let i = 0; i < 50 && !back.ready; i++) { await sleep(200); back = await readiness([temporalCheck(client)]); }
    expect(back).toEqual({ ready: true, checks: { temporal: 'ok' } });
  } finally {
    await connection.close();
    await temporal.stop();
  }
}, 120_000);

test('Keystone: any answer below 500 is up; a 5xx or a closed port is not', async () => {
  const up = await answering(300);
  const broken = await answering(503);
  const closed = await freePort();
  try {
    const r = await readiness([
      { ...keystoneCheck(up.url), name: 'up' },
      { ...keystoneCheck(broken.url), name: 'broken' },
      { ...keystoneCheck(`http://127.0.0.1:${closed}/v3`), name: 'closed' },
    ]);
    expect(r.ready).toBe(false);
    expect(r.checks.up).toBe('ok');
    expect(r.checks.broken).toBe('Keystone answered 503');
    expect(r.checks.closed).not.toBe('ok');
  } finally {
    await up.close();
    await broken.close();
  }
});

test('a check that never answers fails at the bound, and the probe answer names no reason', async () => {
  const hung = { name: 'hung', check: () => new Promise<void>(() => {}) };
  const started = Date.now();
  const a = await probeAnswer([hung, storeCheck(store)], { warn: () => {} });
  expect(Date.now() - started).toBeLessThan(4000);
  expect(a).toEqual({ status: 503, body: { status: 'unready', checks: { hung: 'unavailable', store: 'ok' } } });
});

test('probes within a second share one readiness run: a flood of them checks the dependencies once', async () => {
  let runs = 0;
  const counted = { name: 'counted', check: async () => { runs++; await sleep(50); } };
  const probe = sharedProbe([counted], { warn: () => {} });
  const answers = await Promise.all(Array.from({ length: 50 }, () => probe()));
  expect(runs).toBe(1);
  expect(answers.every((a) => a.status === 200)).toBe(true);
  await sleep(1100);
  await probe();
  expect(runs).toBe(2);
});

test("the worker's probe port: /healthz follows the worker, /readyz its dependencies, nothing else is served", async () => {
  let alive = true;
  const keystone = await answering(200);
  let keystoneUrl = keystone.url;
  const probes = await startProbeServer({
    host: '127.0.0.1', port: 0, log, alive: () => alive,
    checks: [storeCheck(store), { name: 'keystone', check: (d) => keystoneCheck(keystoneUrl).check(d) }],
  });
  const get = async (p: string, method = 'GET') => {
    const r = await fetch(`http://127.0.0.1:${probes.port}${p}`, { method });
    return { status: r.status, body: await r.json() };
  };
  try {
    expect(await get('/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await get('/readyz')).toEqual({ status: 200, body: { status: 'ready', checks: { store: 'ok', keystone: 'ok' } } });
    keystoneUrl = `http://127.0.0.1:${await freePort()}/v3`;
    await sleep(1100); // the last answer is shared for a second
    expect(await get('/readyz')).toEqual({ status: 503, body: { status: 'unready', checks: { store: 'ok', keystone: 'unavailable' } } });
    alive = false;
    expect((await get('/healthz')).status).toBe(503);
    expect((await get('/metrics')).status).toBe(404);
    expect((await get('/readyz', 'POST')).status).toBe(405);
  } finally {
    await probes.close();
    await keystone.close();
  }
});
