/**
 * `npm test`, the full proof, in phases (docs/testing.md):
 *   typecheck   tsc --noEmit
 *   compile     the product compiled once to JavaScript; every component of the run starts from it (COMPILED_TREE)
 *   bundle      the workflow bundle every worker of the run loads (WORKFLOW_BUNDLE)
 *   unit        no server of any kind, 2 jest workers
 *   component   servers of their own, 2 jest workers
 *   harness     the shared product on SQLite, started once for the next two tiers
 *   e2e         on the shared harness, 2 jest workers
 *   pg          the files that stress the store, on a harness whose product runs on PostgreSQL; it runs
 *               beside e2e (a child process, its own harness), one file at a time
 *   disruptive  one file at a time alone on a harness, in two lanes that take files from the two ends of one
 *               queue: the second lane (a child process, its own harness) the shortest first, from when pg is
 *               done, beside the rest of e2e; the first lane the longest first, on the e2e tier's harness once
 *               e2e is done
 * Every tier runs even when an earlier one failed; the exit code says whether all passed.
 * At the end: each phase's time, the 15 slowest files, and one line of counts.
 *
 *   npm test -- <pattern ...>   only the test files whose path matches (in every tier)
 *   TEST_TIERS=unit,e2e         only these tiers (default: all of them)
 *   TEST_STORES=postgres        with `npm run test:pg`: every e2e and disruptive file on PostgreSQL
 *   TEST_WORKERS=1              jest workers of the parallel tiers (default 2)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startHarness } from '../test/harness/setup';
import { stopHarness } from '../test/harness/teardown';
import { bundleWorkflows } from '../worker/workflow-bundle';
import { compileTree } from './compile-tree';

const ROOT = path.resolve(__dirname, '..');
const JEST = path.join(ROOT, 'node_modules', '.bin', 'jest');

/**
 * The files that stress the store's transactions, run again with the product on PostgreSQL
 * (the repository contract on both dialects is test/component/store-repos.test.ts; multi-host
 * runs its own PostgreSQL-backed hosts).
 */
export const PG_TIER = [
  'test/disruptive/hostile-input.test.ts', // hostile bytes into every column (the NUL-byte 500 was found here)
  'test/disruptive/lcm.test.ts', // op occ transactions, operator decisions, worker kills
  'test/disruptive/notifications-delivery.test.ts', // the notification outbox
  'test/disruptive/magnum-api.test.ts', // Magnum's fenced status writes
  'test/e2e/sol013-protocol.test.ts', // SOL013's status codes and headers (ETags of rows as PostgreSQL returns them)
  'test/e2e/sol013-paging.test.ts', // paging and filters evaluated in PostgreSQL's SQL (JSON members through jsonb)
];

interface Phase { name: string; seconds: number; ok: boolean; detail?: string }
interface FileTime { file: string; tier: string; store: string; seconds: number; passed: number; failed: number; skipped: number }

const phases: Phase[] = [];
const startedAt = Date.now();
const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nfv-test-run-'));
const timingsFile = process.env.TEST_NESTED === '1' && process.env.TEST_TIMINGS_FILE ? process.env.TEST_TIMINGS_FILE : path.join(runDir, 'timings.jsonl');
const workers = process.env.TEST_WORKERS ?? '2';
const patterns = process.argv.slice(2);

async function phase(name: string, fn: () => Promise<boolean> | boolean, detail?: () => string): Promise<boolean> {
  if (stopping) return false;
  console.log(`\n== ${name}`);
  const t0 = Date.now();
  let ok = false;
  try {
    ok = await fn();
  } catch (e) {
    console.error(`${name} failed: ${(e as Error).stack ?? e}`);
  }
  phases.push({ name, seconds: (Date.now() - t0) / 1000, ok, detail: detail?.() });
  return ok;
}

/**
 * Runs a command to its end. Not spawnSync: this process is the parent of the harness's components, and
 * its event loop must keep running to reap one a test killed (a zombie still answers kill(pid, 0), so the
 * restarted scripts worker would take its dead predecessor for alive).
 */
function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env, logFile?: string): Promise<boolean> {
  const out = logFile ? fs.openSync(logFile, 'a') : 'inherit';
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', out, out], cwd: ROOT, env });
    running.add(child);
    child.once('error', () => { running.delete(child); resolve(false); });
    child.once('exit', (code) => { running.delete(child); resolve(code === 0); });
  });
}

const running = new Set<ReturnType<typeof spawn>>();
let harnessUp = false;
let stopping = false; // a signal came: no phase starts, and the signal's handler stops the harness

/**
 * Ctrl-C or a CI timeout: the harness's components are this process's children but not in its process group's
 * foreground, and would outlive it. Stop the runs under way (a nested run stops its own harness the same way),
 * then this process's harness, then exit.
 */
function stopOnSignal(signal: NodeJS.Signals): void {
  stopping = true;
  console.error(`\n== ${signal}: stopping the runs under way and the harness`);
  for (const child of running) child.kill('SIGTERM');
  const exited = [...running].map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r))));
  const deadline = new Promise((r) => setTimeout(r, 60_000).unref());
  void Promise.race([Promise.all(exited), deadline])
    .then(() => (harnessUp ? stopHarness() : undefined))
    .finally(() => {
      fs.rmSync(runDir, { recursive: true, force: true });
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
}
process.once('SIGINT', stopOnSignal);
process.once('SIGTERM', stopOnSignal);

/**
 * One jest run over a tier's project (and the given files, if any). --forceExit: an idle keep-alive socket does not
 * hold the run open; what a file leaves running is the leak check's to find (test/harness/leak-check-environment.ts).
 */
function jest(projects: string[], opts: { serial?: boolean; files?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<boolean> {
  const args = ['--selectProjects', ...projects, '--passWithNoTests', '--forceExit', opts.serial ? '--runInBand' : `--maxWorkers=${workers}`];
  return run(JEST, [...args, ...(opts.files ?? patterns)], { ...process.env, TEST_TIMINGS_FILE: timingsFile, ...opts.env });
}

function fileTimes(): FileTime[] {
  if (!fs.existsSync(timingsFile)) return [];
  return fs.readFileSync(timingsFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as FileTime);
}

/** The files of a tier measured so far (of those `only` accepts): "20 files, 228 tests". */
const counted = (tiers: string[], store = 'sqlite', only: (file: string) => boolean = () => true) => () => {
  const files = fileTimes().filter((f) => tiers.includes(f.tier) && f.store === store && only(f.file));
  return `${files.length} files, ${files.reduce((n, f) => n + f.passed + f.failed + f.skipped, 0)} tests`;
};

/** Starts the harness on `store`, runs `tiers` on it (when it started), stops it (what of it started). */
async function onHarness(store: 'sqlite' | 'postgres', tiers: () => Promise<void>): Promise<void> {
  process.env.TEST_STORE = store;
  harnessUp = true; // from here a signal's handler stops it
  try {
    let firstFailure = '';
    const start = async () => {
      try {
        await startHarness();
      } catch (e) {
        // Two harnesses start side by side on 2 cores, with ports picked free a moment before they are bound: a start
        // that fails under that load gets one more try on fresh ports (startHarness left nothing of the first behind).
        // Its reason stays on the phase's line, the part of the output CI always shows.
        firstFailure = (e as Error).message.split('\n')[0].slice(0, 200);
        console.error(`harness start (${store}) failed; starting it once more: ${(e as Error).stack ?? e}`);
        await startHarness();
      }
      return true;
    };
    if (await phase(`harness start (${store})`, start, () => (firstFailure ? `second try; the first failed: ${firstFailure}` : ''))) {
      process.env.HARNESS = 'external';
      await tiers();
    }
  } finally {
    delete process.env.HARNESS;
    if (!stopping) {
      await phase(`harness stop (${store})`, async () => { await stopHarness(); return true; });
      harnessUp = false;
    }
  }
}

function summary(): boolean {
  const files = fileTimes();
  const pad = (s: string, n: number) => s.padEnd(n);
  console.log('\n== phases');
  for (const p of phases) console.log(`  ${pad(p.name, 26)} ${p.seconds.toFixed(0).padStart(5)} s  ${p.ok ? 'ok    ' : 'FAILED'}${p.detail ? `  ${p.detail}` : ''}`);
  console.log(`  ${pad('wall clock', 26)} ${((Date.now() - startedAt) / 1000).toFixed(0).padStart(5)} s  (pg and the second disruptive lane ran beside e2e)`);
  console.log('\n== the 15 slowest files');
  for (const f of [...files].sort((a, b) => b.seconds - a.seconds).slice(0, 15)) {
    console.log(`  ${f.seconds.toFixed(1).padStart(7)} s  ${pad(f.tier, 10)} ${pad(f.store, 8)} ${f.file}${f.failed ? '  FAILED' : ''}`);
  }
  fs.mkdirSync(path.join(ROOT, '.test-timings'), { recursive: true });
  fs.writeFileSync(path.join(ROOT, '.test-timings', 'last-run.json'), JSON.stringify({ at: new Date().toISOString(), wallSeconds: (Date.now() - startedAt) / 1000, phases, files }, null, 2));
  const sum = (k: 'passed' | 'failed' | 'skipped') => files.reduce((n, f) => n + f[k], 0);
  const ok = phases.every((p) => p.ok);
  // the plain closing line CI reads; a phase that failed outside jest counts as a failure too
  console.log(`\ntests: ${sum('passed')} passed, ${sum('failed') + (ok || sum('failed') ? 0 : 1)} failed, ${sum('skipped')} skipped`);
  return ok;
}

/**
 * This script again in a child process, with a harness of its own (its product shares nothing with this one's
 * but the machine): the pg tier beside e2e, then the second lane of the disruptive tier. Its output goes to a
 * log, printed when it is done.
 */
async function inChild(name: string, files: string[], env: NodeJS.ProcessEnv): Promise<boolean> {
  const log = path.join(runDir, `${name.replace(/\W+/g, '-')}.log`);
  const ok = await run(process.execPath, ['--import', 'tsx', path.join(__dirname, 'test.ts'), ...files], {
    ...process.env, TEST_NESTED: '1', TEST_TIMINGS_FILE: timingsFile, HARNESS: '', PRODUCT_STATE: '', API_URL: '', ...env,
  }, log);
  console.log(`\n== ${name} (its output)\n${fs.readFileSync(log, 'utf8')}`);
  return ok;
}

/**
 * The disruptive files, longest first (by the last run's file times when there are any, else by file size):
 * the queue both lanes take their next file from.
 */
function disruptiveFiles(): string[] {
  const dir = path.join(ROOT, 'test', 'disruptive');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.test.ts')).map((f) => `test/disruptive/${f}`)
    .filter((f) => !patterns.length || patterns.some((p) => f.includes(p.replace(/^test\//, ''))));
  const last = path.join(ROOT, '.test-timings', 'last-run.json');
  const seconds = new Map<string, number>(fs.existsSync(last) ? (JSON.parse(fs.readFileSync(last, 'utf8')).files as FileTime[]).filter((f) => f.store === 'sqlite').map((f) => [f.file, f.seconds]) : []);
  const weight = (f: string) => seconds.get(f) ?? fs.statSync(path.join(ROOT, f)).size / 100;
  return files.sort((a, b) => weight(b) - weight(a));
}

/**
 * A lane: each file of the queue not yet claimed by the other lane (a directory made per file: mkdir is
 * atomic across the two processes), one jest run per file on this process's harness; `ran` gets the files.
 */
async function lane(queueDir: string, files: string[], ran: Set<string> = new Set()): Promise<boolean> {
  let ok = true;
  for (const f of files) {
    if (stopping) return false;
    try {
      fs.mkdirSync(path.join(queueDir, f.replace(/\W+/g, '_')));
    } catch {
      continue; // the other lane has it
    }
    ran.add(f);
    ok = (await jest(['disruptive'], { serial: true, files: [f] })) && ok;
  }
  return ok;
}

async function main(): Promise<void> {
  const tiers = (process.env.TEST_TIERS ?? 'unit,component,e2e,disruptive,pg').split(',').map((t) => t.trim());
  const pgOnly = process.env.TEST_STORES === 'postgres';
  // a nested run (pgTierBeside) gets the compiled tree, the bundle and the timings file of its parent
  const nested = process.env.TEST_NESTED === '1';
  if (!nested) {
    await phase('typecheck', () => run(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['--noEmit']));
    const tree = path.join(runDir, 'tree');
    await phase('compile components', () => compileTree(tree) > 0);
    process.env.COMPILED_TREE = tree;
    const bundle = path.join(runDir, 'workflow-bundle.js');
    await phase('bundle workflows', async () => { await bundleWorkflows(bundle); return true; });
    process.env.WORKFLOW_BUNDLE = bundle;
  }
  if (pgOnly) {
    await onHarness('postgres', async () => {
      await phase('pg', () => jest(['e2e', 'disruptive'], { serial: true }), counted(['e2e', 'disruptive'], 'postgres'));
    });
  } else {
    if (tiers.includes('unit')) await phase('unit', () => jest(['unit'], { env: { HARNESS: 'off' } }), counted(['unit']));
    if (tiers.includes('component')) await phase('component', () => jest(['component'], { env: { HARNESS: 'off' } }), counted(['component']));
    const pgFiles = PG_TIER.filter((f) => !patterns.length || patterns.some((p) => f.includes(p.replace(/^test\//, ''))));
    const pg = tiers.includes('pg') && pgFiles.length
      ? phase('pg (beside e2e)', () => inChild('pg tier', pgFiles, { TEST_STORES: 'postgres', VIMSIM_ADDRESS_BLOCK: '64' }), counted(['e2e', 'disruptive'], 'postgres')) : undefined;
    // a second lane (TEST_QUEUE) takes the parent's queue in the order it is given
    const queue = tiers.includes('disruptive')
      ? { dir: process.env.TEST_QUEUE ?? path.join(runDir, 'disruptive-queue'), files: process.env.TEST_QUEUE ? patterns : disruptiveFiles() } : undefined;
    if (queue) fs.mkdirSync(queue.dir, { recursive: true });
    const firstLane = new Set<string>();
    // the second lane: a harness of its own, from when the pg tier's is stopped (two harnesses at a time), the
    // shortest files first: beside e2e, the light ones; the longest are the first lane's, after e2e
    const second = queue && !process.env.TEST_QUEUE
      ? (async () => {
        await pg;
        const child = () => inChild('disruptive, second lane', [...queue.files].reverse(), { TEST_TIERS: 'disruptive', TEST_QUEUE: queue.dir, VIMSIM_ADDRESS_BLOCK: '128' });
        return phase('disruptive, second lane', child, counted(['disruptive'], 'sqlite', (f) => !firstLane.has(f)));
      })()
      : undefined;
    if (tiers.includes('e2e') || tiers.includes('disruptive')) {
      await onHarness('sqlite', async () => {
        if (tiers.includes('e2e')) await phase('e2e', () => jest(['e2e']), counted(['e2e']));
        if (!queue) return;
        const name = process.env.TEST_QUEUE ? 'disruptive' : 'disruptive, first lane';
        await phase(name, () => lane(queue.dir, queue.files, firstLane), counted(['disruptive'], 'sqlite', (f) => firstLane.has(f)));
      });
    }
    await pg;
    await second;
  }
  if (stopping) return; // the signal's handler stops the harness and exits
  const ok = nested ? phases.every((p) => p.ok) : summary();
  fs.rmSync(runDir, { recursive: true, force: true });
  process.exit(ok ? 0 : 1);
}

main().catch((e) => { console.error(e); process.exit(1); });
