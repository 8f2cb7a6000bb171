/**
 * Worker memory with parked ops: `npm run bench:parked -- [M]` (M default
 * 1000 or BENCH_PARKED). Starts the product as users do (the worker bundles
 * its workflows itself; WORKER_MAX_CACHED_WORKFLOWS passed on when set),
 * measures the worker idle, then parks M change_vnfpkg ops on an EM that holds
 * their coordinations (Retry-After 30 s), and releases them: every op must
 * complete, its evicted workflow runs replayed when they wake (each parked
 * op is three runs: the op, its rolling chunk and the VNFC's, whose wait is a
 * row in the store that the worker's coordination poller polls). Writes
 * bench/results/parked-latest.json; see docs/benchmarks.md ("Parked ops").
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { DEFAULT_MAX_CACHED_WORKFLOWS } from '../common/config';
import { startEm } from '../em/server';
import { Api } from './api';
import { rssMiB } from './procs';
import { startProduct } from './product';
import { parkedOps, printParked } from './rolling-parked';
import { benchPackage } from './rolling-package';

const RESULTS = path.join(__dirname, 'results', 'parked-latest.json');
const IDLE_SETTLE_MS = 30_000;
const log = (m: string) => console.log(`[bench] ${new Date().toISOString().slice(11, 19)} ${m}`);
const load = () => os.loadavg().map((l) => Math.round(l * 100) / 100);

async function main(): Promise<void> {
  const m = Number(process.argv[2] ?? process.env.BENCH_PARKED ?? 1000);
  if (!Number.isInteger(m) || m < 1) throw new Error('usage: bench/parked.ts [M>=1]');
  delete process.env.WORKFLOW_BUNDLE; // the worker as `npm start` runs it
  const cache = Number(process.env.WORKER_MAX_CACHED_WORKFLOWS || DEFAULT_MAX_CACHED_WORKFLOWS);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  process.env.EM_LOG_LEVEL ??= 'warn';
  const loadAtStart = load();
  log(`${m} parked ops, worker cache ${cache} runs, Heat sleep scale ${process.env.BENCH_HEAT_SLEEP_SCALE || 1}; load average ${loadAtStart.join(' ')}; starting the product ...`);
  const product = await startProduct();
  const em = await startEm({});
  let connection: Connection | undefined;
  try {
    await new Promise((r) => setTimeout(r, IDLE_SETTLE_MS));
    const idle = { worker: rssMiB(product.pids.worker), api: rssMiB(product.pids.api) };
    log(`idle ${IDLE_SETTLE_MS / 1000} s after the start: worker ${idle.worker} MiB, API ${idle.api} MiB`);
    connection = await Connection.connect({ address: product.temporalAddress });
    const client = new Client({ connection });
    const api = new Api(product.apiUrl, product.admin);
    const [oldVnfd, newVnfd] = [await api.onboard(benchPackage('1.0', 3).zip), await api.onboard(benchPackage('2.0', 3).zip)];
    const parked = await parkedOps(product, api, client, em, oldVnfd, newVnfd, m, 'complete');
    const result = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, loadavg: { start: loadAtStart, end: load() } },
      settings: { parked: m, workerMaxCachedWorkflows: cache, heatSleepScale: Number(process.env.BENCH_HEAT_SLEEP_SCALE || 1), em: 'hang, Retry-After 30 s, then CONTINUE' },
      idleRssMiB: idle,
      parked,
      /** What parking added to the worker (parked minus before the change_vnfpkg ops), and its peak while they completed. */
      addedByParkingMiB: Math.round((parked.workerRssMiB.parked - parked.workerRssMiB.beforeOps) * 10) / 10,
    };
    console.log();
    console.log(`worker idle ${idle.worker} MiB; parking ${m} ops added ${result.addedByParkingMiB} MiB (${parked.workerAfterGc.addedMiB} MiB after a forced GC)`);
    printParked(parked);
    fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
    fs.writeFileSync(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${path.relative(process.cwd(), RESULTS)}`);
  } finally {
    await connection?.close();
    await em.close();
    await product.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
