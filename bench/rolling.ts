/**
 * Rolling update benchmark: `npx tsx bench/rolling.ts [N] [--parked M]`
 * (N default 200 or BENCH_N; M default 50 or BENCH_PARKED; --parked 0 skips it).
 *
 *  (b) one change_vnfpkg over N VDU1 VNFCs (simulator and in-process EM at zero
 *      delay, sync CONTINUE): wall time, and events over the op workflow and
 *      all its child workflows (total, per VNFC, largest single run);
 *  (a) bare Temporal in the same shape as (b)'s histories: a parent [looping
 *      over chunk workflows] looping over N per-VNFC child workflows, each run
 *      scheduling as many no-op activities as its (b) counterpart;
 *  then (b)/(a) per VNFC; and the worker's RSS with M ops parked on an EM that
 *  never decides. Writes bench/results/rolling-latest.json; see docs/benchmarks.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startEm } from '../em/server';
import { Api } from './api';
import { runBaselineRolling, withBaselineWorker } from './baseline';
import type { RollingShape } from './baseline-workflow';
import { cpuMeter } from './procs';
import { HEAT_POLL_MS, startProduct } from './product';
import { ratio } from './report';
import { parkedOps, ParkedResult } from './rolling-parked';
import { BENCH_LEVEL, benchPackage } from './rolling-package';
import { sum, treeStats, TreeStats } from './rolling-histories';
import { awaitOp, changeBody, instantiated } from './rolling-ops';

const RESULTS = path.join(__dirname, 'results', 'rolling-latest.json');
const log = (m: string) => console.log(`[bench] ${m}`);

function args(): { n: number; parked: number } {
  const a = process.argv.slice(2);
  const i = a.indexOf('--parked');
  const parked = i >= 0 ? Number(a.splice(i, 2)[1]) : Number(process.env.BENCH_PARKED ?? 50);
  const n = Number(a[0] ?? process.env.BENCH_N ?? 200);
  if (!Number.isInteger(n) || n < 1 || !Number.isInteger(parked) || parked < 0) throw new Error('usage: bench/rolling.ts [N>=1] [--parked M>=0]');
  return { n, parked };
}

interface Side { ms: number; msPerVnfc: number; events: TreeStats; eventsPerVnfc: number; cpuSeconds?: Record<string, number> }
const side = (ms: number, n: number, events: TreeStats): Side => ({
  ms: Math.round(ms), msPerVnfc: Math.round((ms / n) * 10) / 10, events, eventsPerVnfc: Math.round((events.totalEvents / n) * 10) / 10,
});

async function main(): Promise<void> {
  const { n, parked } = args();
  Runtime.install({ logger: new DefaultLogger('WARN') });
  process.env.EM_LOG_LEVEL ??= 'warn';
  log(`N = ${n} VNFCs, ${parked} parked ops; starting Temporal dev server, VIM simulator, worker, API, EM ...`);
  const product = await startProduct();
  const em = await startEm({});
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address: product.temporalAddress });
    const client = new Client({ connection });
    const api = new Api(product.apiUrl);
    const [oldVnfd, newVnfd] = [await api.onboard(benchPackage('1.0', n).zip), await api.onboard(benchPackage('2.0', n).zip)];
    const deadline = 60_000 + n * 2_000;

    log(`instantiate at ${BENCH_LEVEL} (${n} VDU1 + 1 VDU2 VNFCs; not part of the figure)`);
    const inst = await instantiated(api, client, oldVnfd, BENCH_LEVEL, deadline);
    log(`instantiated in ${inst.ms} ms; change_vnfpkg over VDU1 (${n} VNFCs)`);
    const { pids } = product;
    const cpu = cpuMeter({ ...(Number.isFinite(pids.temporal) ? { temporal: pids.temporal } : {}), worker: pids.worker, vimsim: pids.vimsim, api: pids.api, 'bench (EM)': 'self' });
    const t0 = performance.now();
    const opOccId = await api.changeVnfpkg(inst.id, changeBody(newVnfd, em.url, 60));
    await awaitOp(api, client, opOccId, deadline);
    const bMs = performance.now() - t0;
    const bCpu = cpu();
    const coords = em.coordinations().filter((c) => c.request.vnfLcmOpOccId === opOccId).length;
    const bEvents = await treeStats(client, opOccId);
    const b = { ...side(bMs, n, bEvents), cpuSeconds: bCpu };
    const shape = shapeOf(n, bEvents);
    if (bEvents.levels[bEvents.levels.length - 1].runs !== n || coords !== n) log(`WARNING: ${JSON.stringify(bEvents.levels.map((l) => l.runs))} runs per level, ${coords} coordinations for ${n} VNFCs`);
    log(`change_vnfpkg: ${b.ms} ms, ${bEvents.totalEvents} events in ${bEvents.runs} runs (max ${bEvents.maxEvents}); shape ${JSON.stringify(shape)}`);

    log(`baseline: the same shape with no-op activities`);
    const a = await withBaselineWorker(product.temporalAddress, async () => {
      const aCpu = cpuMeter({ ...(Number.isFinite(pids.temporal) ? { temporal: pids.temporal } : {}), 'bench (worker)': 'self' });
      const t = performance.now();
      const id = await runBaselineRolling(client, shape);
      const ms = performance.now() - t;
      return { ...side(ms, n, await treeStats(client, id)), cpuSeconds: aCpu() };
    });
    const parkedResult: ParkedResult | undefined = parked > 0 ? await parkedOps(product, api, client, em, oldVnfd, newVnfd, parked) : undefined;

    const result = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100) },
      settings: { n, parked, temporalArgs: product.temporalArgs, vimsimDelayMs: 0, heatPollMs: HEAT_POLL_MS, em: 'in-process, sync CONTINUE' },
      instantiateMs: inst.ms,
      shape, activityTypesPerLevel: bEvents.levels.map((l) => l.activities),
      baseline: a, changeVnfpkg: b,
      ratios: { msPerVnfc: ratio(b.msPerVnfc, a.msPerVnfc), eventsPerVnfc: ratio(b.eventsPerVnfc, a.eventsPerVnfc) },
      maxEventsSingleRun: b.events.maxEvents,
      parked: parkedResult,
    };
    printRolling(result);
    fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
    fs.writeFileSync(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${path.relative(process.cwd(), RESULTS)}`);
  } catch (e) {
    console.error(e); // now: closing the connection below may crash the process (a pending result() retries on it)
    console.error(`[bench] failed; logs kept in ${path.join(product.dataDir, 'logs')}`);
    throw e;
  } finally {
    await connection?.close();
    await em.close();
    await product.stop();
  }
  fs.rmSync(product.dataDir, { recursive: true, force: true });
}

/**
 * The product's tree as a baseline shape: root, [chunk workflows,] one run per
 * VNFC (the deepest level), and the activities each level schedules per run.
 */
function shapeOf(n: number, t: TreeStats): RollingShape {
  const per = (l: { runs: number; activities: Record<string, number> } | undefined) => (l && l.runs ? Math.round(sum(l.activities) / l.runs) : 0);
  const leaf = t.levels[t.levels.length - 1];
  const chunks = t.levels.length > 2 ? t.levels[1] : undefined;
  return { vnfcs: n, parentActs: per(t.levels[0]), chunkActs: per(chunks), leafActs: per(leaf), chunk: chunks ? Math.ceil(n / chunks.runs) : 0 };
}

function printRolling(r: { settings: { n: number }; shape: RollingShape; baseline: Side; changeVnfpkg: Side; ratios: Record<string, number>; parked?: ParkedResult }): void {
  const { baseline: a, changeVnfpkg: b } = r;
  const line = (c: (string | number)[]) => c.map((x, i) => (i ? String(x).padStart(16) : String(x).padEnd(28))).join(' ');
  console.log();
  console.log(line([`N = ${r.settings.n}`, `(a) ${r.shape.leafActs} no-ops/VNFC`, '(b) change_vnfpkg', '(b)/(a)']));
  console.log(line(['total time (ms)', a.ms, b.ms, ratio(b.ms, a.ms)]));
  console.log(line(['time per VNFC (ms)', a.msPerVnfc, b.msPerVnfc, r.ratios.msPerVnfc]));
  console.log(line(['history events (all runs)', a.events.totalEvents, b.events.totalEvents, ratio(b.events.totalEvents, a.events.totalEvents)]));
  console.log(line(['events per VNFC', a.eventsPerVnfc, b.eventsPerVnfc, r.ratios.eventsPerVnfc]));
  console.log(line(['max events in one run', a.events.maxEvents, b.events.maxEvents, '']));
  console.log(line(['runs per level', a.events.levels.map((l) => l.runs).join('/'), b.events.levels.map((l) => l.runs).join('/'), '']));
  const leaf = (x: Side) => { const l = x.events.levels[x.events.levels.length - 1]; return `${l.meanMs} ms ${JSON.stringify(l.meanActivityMs)}`; };
  console.log(`per-VNFC run, mean first-to-last event and activity time (scheduled -> completed):`);
  console.log(`  (a) ${leaf(a)}`);
  console.log(`  (b) ${leaf(b)}`);
  const cpu = (x: Side) => Object.entries(x.cpuSeconds ?? {}).map(([k, v]) => `${k} ${v}`).join(', ');
  console.log(`CPU seconds: (a) ${cpu(a)}; (b) ${cpu(b)}`);
  const p = r.parked;
  if (p) {
    console.log();
    console.log(`parked ops: ${p.ops}; worker RSS ${p.workerRssMiB.beforeOps} -> ${p.workerRssMiB.parked} MiB (${p.workerRssMiB.perParkedOpKiB} KiB per op); Temporal ${p.temporalRssMiB.beforeOps} -> ${p.temporalRssMiB.parked} MiB`);
    console.log(`  instantiate ${p.instantiateSeconds} s, POSTs ${p.startSeconds} s, all PENDING after ${p.parkSeconds} s; cancel: ${p.cancel.failedTemp} FAILED_TEMP in ${p.cancel.seconds} s, ${p.cancel.emCancelled} cancelled on the EM`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
