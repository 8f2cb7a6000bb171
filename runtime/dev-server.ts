/**
 * Runs the Temporal dev server for the embedded default: SQLite file under
 * DATA_DIR, Web UI, our search attributes pre-registered. Uses the CLI from
 * findTemporalCli(); without one, the SDK's cached download (needs internet).
 */
import { spawn, ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { devServerSearchAttributeArgs, SEARCH_ATTRIBUTES } from '../common/temporal';
import { findTemporalCli, INSTALL_HINT } from './temporal-cli';

export interface DevServerOptions {
  dataDir: string;
  port: number;
  uiPort: number;
  namespace: string;
  headless?: boolean;
  log?: (m: string) => void;
  /** Extra flags, e.g. --ui-codec-endpoint. */
  extraArgs?: string[];
  /** Where the server's own output goes (default: inherit). */
  stdio?: 'inherit' | number;
}

export interface DevServer {
  address: string;
  stop(): Promise<void>;
}

export async function waitForPort(host: string, port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host, port });
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listening on ${host}:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The server fires no timer earlier than now + history.timerProcessorMaxTimeShift, 1 s by default: a stack
 * poll's 50 ms timer waited a second, and an instantiate that Heat finishes in 1.2 s took 2.8 s (docs/benchmarks.md,
 * "Timer precision"). 50 ms makes a workflow timer as punctual as a poll needs.
 */
const TIMER_PRECISION_ARGS = ['--dynamic-config-value', 'history.timerProcessorMaxTimeShift="50ms"'];

/** The CLI's arguments: SQLite under o.dataDir, gRPC and UI on 127.0.0.1, our search attributes. */
export function devServerArgs(o: DevServerOptions): string[] {
  return [
    'server', 'start-dev', '--ip', '127.0.0.1', '--port', String(o.port), '--db-filename', path.join(o.dataDir, 'temporal.sqlite'),
    '--namespace', o.namespace, '--log-level', 'warn',
    ...(o.headless ? ['--headless'] : ['--ui-port', String(o.uiPort)]),
    ...devServerSearchAttributeArgs(),
    ...TIMER_PRECISION_ARGS,
    ...(o.extraArgs ?? []),
  ];
}

export async function startDevServer(o: DevServerOptions): Promise<DevServer> {
  const log = o.log ?? (() => undefined);
  fs.mkdirSync(o.dataDir, { recursive: true });
  const dbFile = path.join(o.dataDir, 'temporal.sqlite');
  const cli = findTemporalCli({ log });
  if (cli) {
    const args = devServerArgs(o);
    log(`starting Temporal dev server: ${cli} ${args.join(' ')}`);
    const out = o.stdio ?? 'inherit';
    const child = spawn(cli, args, { stdio: ['ignore', out, out] });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    await Promise.race([
      waitForPort('127.0.0.1', o.port, 60_000),
      exited.then(() => { throw new Error(`Temporal dev server exited early (code ${child.exitCode})`); }),
    ]);
    return { address: `127.0.0.1:${o.port}`, stop: () => stopChild(child, exited) };
  }
  return startWithSdkDownload(o, dbFile, log);
}

export async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(t);
}

async function startWithSdkDownload(o: DevServerOptions, dbFile: string, log: (m: string) => void): Promise<DevServer> {
  let testing: typeof import('@temporalio/testing');
  try {
    testing = require('@temporalio/testing');
  } catch {
    throw new Error(INSTALL_HINT);
  }
  log('no local Temporal CLI; trying the SDK cached download (needs internet)');
  try {
    const env = await testing.TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'cached-download' },
        ip: '127.0.0.1', port: o.port, ui: !o.headless, uiPort: o.uiPort, dbFilename: dbFile,
        namespace: o.namespace, searchAttributes: SEARCH_ATTRIBUTES,
      },
    });
    return { address: `127.0.0.1:${o.port}`, stop: () => env.teardown() };
  } catch (e) {
    throw new Error(`${INSTALL_HINT} (SDK download failed: ${(e as Error).message})`);
  }
}
