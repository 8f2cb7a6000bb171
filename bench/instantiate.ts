/**
 * Instantiate benchmark: `npx tsx bench/instantiate.ts` (or `npm run bench`).
 *
 * Against one Temporal dev server and one embedded cloud (real Keystone and
 * Heat, the VIM simulator at zero delay), in one run:
 *  (b) InstantiateVnf of samples/two_vdu_vnf through the API;
 *  (a) a bare workflow of as many no-op activities as (b) schedules;
 *  (c) "Heat alone": the very stack (b) makes (template, files, parameters read
 *      back from Heat), created through Heat's API with the product's
 *      HeatClient and polled on the product's schedule, no Temporal;
 * each as latency at concurrency 1 (in turns: b, c, a, b, c, a, ...) and
 * throughput at concurrency C (b, c, a); then (b)/(a) and (b)/(c), the
 * product's overhead over the VIM itself. Prints a table and writes
 * bench/results/latest.json. See docs/benchmarks.md.
 * Env: BENCH_HEAT_SLEEP_SCALE (Heat's sleeps, default 1 = stock),
 * BENCH_CONCURRENCY (default 50), BENCH_HEAT_ALONE_CONCURRENCY ((c)'s, default the same),
 * BENCH_RUNS (10), BENCH_WARMUPS (2),
 * BENCH_HEAT_POLL_MS (50), BENCH_TEMPORAL_ARGS (extra dev server flags),
 * BENCH_HEAT_NICE (every thread of Heat at this nice value: does the product's CPU starve it?),
 * BENCH_ABBA=1 ((b) and (c) at concurrency in the order b, c, c, b: their ratio over both rounds).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { Api, instantiateOperation } from './api';
import { baselineOperation, withBaselineWorker } from './baseline';
import { HeatDb, spread } from './heat-db';
import { HeatRequests, perOp } from './heat-requests';
import { directHeat, DirectHeat } from './heat-direct';
import { historyStats, summarize, type HistoryStats } from './history';
import { latencyInterleaved, LatencyResult, Operation, throughput, warmUp } from './measure';
import { cpuMeter, rssAll } from './procs';
import { HEAT_POLL_MS, Product, startProduct } from './product';
import { BenchResult, printReport, ratio } from './report';

const WARMUPS = Number(process.env.BENCH_WARMUPS || '2');
const RUNS = Number(process.env.BENCH_RUNS || '10');
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY || '50');
/** (c) creates all its stacks at once: 50 at a time did not finish in 15 min on one Heat engine (docs/benchmarks.md). */
const HEAT_ALONE_CONCURRENCY = Number(process.env.BENCH_HEAT_ALONE_CONCURRENCY || CONCURRENCY);
const RESULTS = path.join(__dirname, 'results', 'latest.json');
/** BENCH_ABBA=1: the throughput of (b) and (c) measured b, c, c, b, and their ratio over both rounds. */
const ABBA = process.env.BENCH_ABBA === '1';

const log = (m: string) => console.log(`[bench] ${new Date().toISOString().slice(11, 19)} ${m}`);
const load = () => os.loadavg().map((l) => Math.round(l * 100) / 100);

/** Heat alone (c): the same stack created directly; resolves with "<name>/<id>". */
function heatOperation(direct: DirectHeat, spec: Awaited<ReturnType<DirectHeat['readStack']>>['spec'], polls: number[]): Operation<void> {
  return {
    prepare: async () => undefined,
    run: async () => {
      const s = await direct.create(spec, HEAT_POLL_MS);
      polls.push(s.polls);
      return `${s.name}/${s.id}`;
    },
  };
}

/** Heat's own create time of each stack (its CREATE_IN_PROGRESS to CREATE_COMPLETE events): median, range. */
function heatTimes(db: HeatDb, stackIds: string[]) {
  return spread(stackIds.flatMap((id) => db.actions(id).filter((a) => a.action === 'CREATE').map((a) => a.ms)));
}

function allPids(product: Product): Record<string, number> {
  const { temporal, keystone, heat, vimsim, worker, api } = product.pids;
  return { heat, keystone, vimsim, temporal, worker, api };
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const loadAtStart = load();
  log(`load average ${loadAtStart.join(' ')}; starting Temporal dev server, Keystone, Heat (sleep scale ${process.env.BENCH_HEAT_SLEEP_SCALE || '1'}), VIM simulator, worker, API ...`);
  const product = await startProduct();
  const heatNice = process.env.BENCH_HEAT_NICE; // experiment: every thread of Heat at this nice value
  if (heatNice) for (const tid of fs.readdirSync(`/proc/${product.pids.heat}/task`)) os.setPriority(Number(tid), Number(heatNice));
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address: product.temporalAddress });
    const client = new Client({ connection });
    const api = new Api(product.apiUrl, product.admin);
    const direct = directHeat(product.admin);
    const vnfdId = await api.onboardSample();
    const pids = allPids(product);
    const rssBefore = rssAll({ ...pids, bench: 'self' });

    const instanceOf = new Map<string, string>();
    const inst = instantiateOperation(api, client, vnfdId, instanceOf);
    log(`(b) instantiate: ${WARMUPS} warm-ups`);
    const bWarm = await warmUp(inst, WARMUPS);
    // The floor: a bare workflow of as many activities as an instantiate runs, all through the task queue
    // (the product runs its bookkeeping as local activities, which the floor does not).
    const warm = await Promise.all(bWarm.map((id) => historyStats(client, id)));
    const warmActs = warm.map((h) => h.activities + h.localActivities);
    const n = Number(process.env.BENCH_BASELINE_ACTIVITIES) || Math.round(warmActs.reduce((x, y) => x + y, 0) / warmActs.length);
    log(`an instantiate runs ${warm.map((h) => `${h.activities} + ${h.localActivities} local`).join(', ')} activities (warm-ups): baseline N = ${n}`);
    const { spec } = await direct.readStack(`vnf-${instanceOf.get(bWarm[0])}`);
    log(`(c) Heat alone, the same stack (${Object.keys(spec.files ?? {}).length} files, parameters ${Object.keys(spec.parameters ?? {}).join(', ')}): ${WARMUPS} warm-ups`);
    const cPolls: number[] = [];
    const heatOp = heatOperation(direct, spec, cPolls);
    const cWarm = await warmUp(heatOp, WARMUPS);
    cPolls.length = 0;

    const benchRssBefore = rssAll({ bench: 'self' }).bench;
    const base = baselineOperation(client, n);
    const run = await withBaselineWorker(product.temporalAddress, async () => {
      log(`(a) ${n} no-op activities: ${WARMUPS} warm-ups`);
      const aWarm = await warmUp(base, WARMUPS);
      log(`concurrency 1: ${RUNS} runs each of (b), (c), (a) in turns; load ${load().join(' ')}`);
      const lat = await latencyInterleaved({ b: inst, c: heatOp, a: base }, RUNS, { b: bWarm, c: cWarm, a: aWarm });
      const cPollsLatency = [...cPolls];
      const meter = (names: Record<string, number | 'self'>) => () => cpuMeter(names);
      const heatCalls = HeatRequests.ofProduct(product.dataDir);
      log(`(b) instantiate, concurrency ${CONCURRENCY}; load ${load().join(' ')}`);
      const bt = await throughput(inst, CONCURRENCY, meter({ ...pids, bench: 'self' }));
      const bCalls = perOp(heatCalls.take(), CONCURRENCY);
      log(`(b): ${bCalls.total} Heat API calls per instantiate ${JSON.stringify(bCalls.byKind)}`);
      log(`(c) Heat alone, concurrency ${HEAT_ALONE_CONCURRENCY}; load ${load().join(' ')}`);
      const ct = await throughput(heatOp, HEAT_ALONE_CONCURRENCY, meter({ ...pids, 'bench (client)': 'self' }));
      const cCalls = perOp(heatCalls.take(), HEAT_ALONE_CONCURRENCY);
      log(`(c): ${cCalls.total} Heat API calls per create ${JSON.stringify(cCalls.byKind)}`);
      // ABBA: (c) and (b) once more, in the other order, so that a drift of the machine or of Heat over the run hits both alike
      let abba: { bMs: number[]; cMs: number[]; ratio: number } | undefined;
      if (ABBA) {
        log(`(c) again (ABBA); load ${load().join(' ')}`);
        const ct2 = await throughput(heatOp, HEAT_ALONE_CONCURRENCY, meter({ ...pids, 'bench (client)': 'self' }));
        heatCalls.take();
        log(`(b) again (ABBA); load ${load().join(' ')}`);
        const bt2 = await throughput(inst, CONCURRENCY, meter({ ...pids, bench: 'self' }));
        heatCalls.take();
        const [bMs, cMs] = [[bt.elapsedMs, bt2.elapsedMs], [ct.elapsedMs, ct2.elapsedMs]];
        const sum = (xs: number[]) => xs.reduce((x, y) => x + y, 0);
        abba = { bMs, cMs, ratio: ratio(sum(cMs) * CONCURRENCY, sum(bMs) * HEAT_ALONE_CONCURRENCY) };
        log(`ABBA: (b) ${bMs.map((x) => (x / 1000).toFixed(1)).join(' s, ')} s; (c) ${cMs.map((x) => (x / 1000).toFixed(1)).join(' s, ')} s; (b)/(c) over both rounds ${abba.ratio}`);
      }
      log(`(a) ${n} no-op activities, concurrency ${CONCURRENCY}; load ${load().join(' ')}`);
      const at = await throughput(base, CONCURRENCY, meter({ temporal: pids.temporal, 'bench (worker)': 'self' }));
      return { lat, bt, ct, at, cPollsLatency, heatCallsPerOp: { b: bCalls, c: cCalls }, abba };
    });
    const rssAfter = rssAll({ ...pids, bench: 'self' });
    const loadAtEnd = load();
    const { lat, bt, ct, at } = run;

    log("reading histories and Heat's events");
    const bHist = summarize(await Promise.all(lat.b.workflowIds.map((id) => historyStats(client, id))));
    const aHist = summarize(await Promise.all(lat.a.workflowIds.map((id) => historyStats(client, id))));
    const heatDb = new HeatDb(product.dataDir);
    const stackIdOf = (id: string) => id.split('/')[1];
    const productStacks = (opOccIds: string[]) => [...heatDb.stackIds(opOccIds.map((op) => `vnf-${instanceOf.get(op)}`)).values()];
    const heat = {
      latency: { b: heatTimes(heatDb, productStacks(lat.b.workflowIds)), c: heatTimes(heatDb, lat.c.workflowIds.map(stackIdOf)) },
      throughput: { b: heatTimes(heatDb, productStacks(bt.ids)), c: heatTimes(heatDb, ct.ids.map(stackIdOf)) },
      window: { b: heatDb.createWindow(productStacks(bt.ids), bt.startedAt), c: heatDb.createWindow(ct.ids.map(stackIdOf), ct.startedAt) },
    };
    heatDb.close();
    // where the product's batch was before Heat: the last workflow's start, and the last createStack's schedule, start and answer
    const bBatch = await Promise.all(bt.ids.map((id) => historyStats(client, id)));
    /** Seconds into the batch of the latest of `f` over the batch; none when a history lacks it. */
    const last = (f: (h: HistoryStats) => number | undefined) => {
      const times = bBatch.map(f);
      return times.every((t) => t !== undefined) ? Math.round((Math.max(...(times as number[])) - bt.startedAt) / 100) / 10 : undefined;
    };
    const productWindow = {
      lastWorkflowStartS: last((h) => h.startedAt), lastFirstActivityScheduledS: last((h) => h.firstActivity?.scheduledAt),
      lastFirstActivityStartedS: last((h) => h.firstActivity?.startedAt), lastFirstActivityCompletedS: last((h) => h.firstActivity?.completedAt),
    };
    const secondsIn = (s: number | undefined) => (s === undefined ? 'none' : `+${s} s`);
    log(`(b) c=${CONCURRENCY} in the product: the last workflow started at ${secondsIn(productWindow.lastWorkflowStartS)}; the last ${bBatch[0]?.firstActivity?.type} scheduled ${secondsIn(productWindow.lastFirstActivityScheduledS)}, started ${secondsIn(productWindow.lastFirstActivityStartedS)}, answered ${secondsIn(productWindow.lastFirstActivityCompletedS)}`);

    const result: BenchResult = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, platform: `${os.platform()} ${os.release()}`, loadavg: { start: loadAtStart, end: loadAtEnd } },
      settings: {
        heatSleepScale: product.heatSleepScale, temporalArgs: product.temporalArgs, warmups: WARMUPS, runs: RUNS, concurrency: CONCURRENCY,
        vimsimDelayMs: 0, heatPollMs: HEAT_POLL_MS, sample: 'two_vdu_vnf', instantiationLevel: 'instantiation_level_1',
      },
      activitiesPerInstantiate: n,
      baseline: { latency: strip(lat.a), throughput: strip2(at), history: aHist },
      instantiate: { latency: strip(lat.b), throughput: strip2(bt), history: bHist },
      heatAlone: { latency: strip(lat.c), throughput: strip2(ct), pollsPerStack: run.cPollsLatency },
      heatOwnMs: heat,
      heatCallsPerOp: run.heatCallsPerOp,
      productWindow,
      ratios: {
        latencyMedian: ratio(lat.b.medianMs, lat.a.medianMs),
        latencyP90: ratio(lat.b.p90Ms, lat.a.p90Ms),
        throughput: ratio(at.elapsedMs, bt.elapsedMs), // same concurrency: the rate ratio is the inverse time ratio, unrounded
        vsHeat: {
          latencyMedian: ratio(lat.b.medianMs, lat.c.medianMs),
          latencyP90: ratio(lat.b.p90Ms, lat.c.p90Ms),
          throughput: ratio(ct.elapsedMs * bt.concurrency, bt.elapsedMs * ct.concurrency),
          perOpMedianAtConcurrency: ratio(bt.medianMs, ct.medianMs),
          ...(run.abba ? { throughputAbba: run.abba } : {}),
        },
      },
      memory: {
        rssMiB: { before: rssBefore, after: rssAfter },
        productWorkerRssMiB: { before: rssBefore.worker, after: rssAfter.worker },
        benchProcessRssMiB: { beforeBaselineWorker: benchRssBefore, after: rssAfter.bench },
      },
    };
    printReport(result);
    fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
    fs.writeFileSync(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${path.relative(process.cwd(), RESULTS)}`);
  } catch (e) {
    console.error(e);
    console.error(`[bench] failed; logs kept in ${path.join(product.dataDir, 'logs')}`);
    throw e;
  } finally {
    await connection?.close();
    await product.stop();
  }
  fs.rmSync(product.dataDir, { recursive: true, force: true });
}

function strip(l: LatencyResult) {
  const { workflowIds: _w, warmupIds: _u, ...rest } = l;
  return rest;
}
function strip2<T extends { ids: string[] }>(t: T): Omit<T, 'ids'> {
  const { ids: _i, ...rest } = t;
  return rest;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
