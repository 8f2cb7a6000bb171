/**
 * Instantiate benchmark: `npx tsx bench/instantiate.ts` (or `npm run bench`).
 *
 * Against one Temporal dev server, in one run:
 *  (b) InstantiateVnf of samples/two_vdu_vnf through the API, simulator delay 0:
 *      latency at concurrency 1 and throughput at concurrency 50;
 *  (a) a bare workflow of as many no-op activities as (b) schedules, measured
 *      the same way (in the order b1, a1, b50, a50); then (b)/(a) for both.
 * Prints a table and writes bench/results/latest.json. See docs/benchmarks.md.
 * BENCH_TEMPORAL_ARGS adds dev server flags (e.g. --dynamic-config-value k=v).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { Api } from './api';
import { baselineOperation, withBaselineWorker } from './baseline';
import { historyStats, summarize } from './history';
import { latency, LatencyResult, Operation, throughput } from './measure';
import { cpuMeter, rssMiB } from './procs';
import { HEAT_POLL_MS, startProduct } from './product';
import { BenchResult, printReport, ratio } from './report';

const WARMUPS = 2;
const RUNS = 10;
const CONCURRENCY = 50;
const RESULTS = path.join(__dirname, 'results', 'latest.json');

const log = (m: string) => console.log(`[bench] ${m}`);

/** Instantiate (b): create the instance untimed; time POST instantiate until its workflow returns. */
function instantiateOperation(api: Api, client: Client, vnfdId: string): Operation<string> {
  return {
    prepare: () => api.createInstance(vnfdId),
    run: async (instanceId) => {
      const opOccId = await api.instantiate(instanceId);
      const state = await client.workflow.getHandle(opOccId).result();
      if (state !== 'COMPLETED') throw new Error(`instantiate ${opOccId} ended ${state}`);
      return opOccId;
    },
  };
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  log('starting Temporal dev server, VIM simulator, worker, API ...');
  const product = await startProduct();
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address: product.temporalAddress });
    const client = new Client({ connection });
    const api = new Api(product.apiUrl);
    const vnfdId = await api.onboardSample();
    const { pids } = product;
    const workerRssBefore = rssMiB(pids.worker);
    const serverPids: Record<string, number> = Number.isFinite(pids.temporal) ? { temporal: pids.temporal } : {};

    log(`(b) instantiate, concurrency 1: ${WARMUPS} warm-ups + ${RUNS} runs`);
    const inst = instantiateOperation(api, client, vnfdId);
    const bLat = await latency(inst, WARMUPS, RUNS);
    const n = (await historyStats(client, bLat.warmupIds[0])).activities;
    log(`an instantiate schedules N = ${n} activities (from the history of ${bLat.warmupIds[0]})`);

    // (a) right after (b) for each figure, so slow changes in background load hit both alike.
    const benchRssBefore = rssMiB('self');
    const base = baselineOperation(client, n);
    const [aLat, bTput, aTput] = await withBaselineWorker(product.temporalAddress, async () => {
      log(`(a) ${n} no-op activities, concurrency 1: ${WARMUPS} warm-ups + ${RUNS} runs`);
      const al = await latency(base, WARMUPS, RUNS);
      log(`(b) instantiate, concurrency ${CONCURRENCY}`);
      const bt = await throughput(inst, CONCURRENCY, () => cpuMeter({ ...serverPids, worker: pids.worker, api: pids.api, vimsim: pids.vimsim, bench: 'self' }));
      log(`(a) ${n} no-op activities, concurrency ${CONCURRENCY}`);
      const at = await throughput(base, CONCURRENCY, () => cpuMeter({ ...serverPids, 'bench (worker)': 'self' }));
      return [al, bt, at] as const;
    });
    const workerRssAfter = rssMiB(pids.worker);
    const benchRssAfter = rssMiB('self');
    const bHist = summarize(await Promise.all(bLat.workflowIds.map((id) => historyStats(client, id))));
    const aHist = summarize(await Promise.all(aLat.workflowIds.map((id) => historyStats(client, id))));

    const result: BenchResult = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, platform: `${os.platform()} ${os.release()}` },
      settings: { temporalArgs: product.temporalArgs, warmups: WARMUPS, runs: RUNS, concurrency: CONCURRENCY, vimsimDelayMs: 0, heatPollMs: HEAT_POLL_MS, sample: 'two_vdu_vnf', instantiationLevel: 'instantiation_level_1' },
      activitiesPerInstantiate: n,
      baseline: { latency: strip(aLat), throughput: aTput, history: aHist },
      instantiate: { latency: strip(bLat), throughput: bTput, history: bHist },
      ratios: {
        latencyMedian: ratio(bLat.medianMs, aLat.medianMs),
        latencyP90: ratio(bLat.p90Ms, aLat.p90Ms),
        throughput: ratio(bTput.opsPerSec, aTput.opsPerSec),
      },
      memory: {
        productWorkerRssMiB: { before: workerRssBefore, after: workerRssAfter },
        benchProcessRssMiB: { beforeBaselineWorker: benchRssBefore, after: benchRssAfter },
      },
    };
    printReport(result);
    fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
    fs.writeFileSync(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${path.relative(process.cwd(), RESULTS)}`);
  } catch (e) {
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

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
