/**
 * What the Prometheus metrics cost an instantiate (issue 27): one product,
 * its worker and API restarted between rounds with metrics on (the SDK's
 * exporter too, and both /metrics scraped every 5 s as Prometheus would)
 * and off (METRICS=off: no instrumentation at all), the rounds in turns so
 * that drifting load hits both alike. Each round is a batch of
 * BENCH_CONCURRENCY (default 10) instantiates at once after one warm-up;
 * measured: the batch's wall time and the CPU seconds of the worker and the
 * API per instantiate.
 *
 *   BENCH_HEAT_SLEEP_SCALE=0.05 npm run bench:metrics-cost
 *
 * Env: BENCH_ROUNDS (3 per mode), BENCH_CONCURRENCY (10), BENCH_HEAT_SLEEP_SCALE.
 */
import os from 'node:os';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { Api, instantiateOperation } from './api';
import { percentile, throughput, warmUp } from './measure';
import { cpuMeter } from './procs';
import { startProduct } from './product';
import { freePort } from '../test/harness/ports';

const ROUNDS = Number(process.env.BENCH_ROUNDS || '3');
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY || '10');
const log = (m: string) => console.log(`[bench] ${new Date().toISOString().slice(11, 19)} ${m}`);
const load = () => os.loadavg().map((l) => Math.round(l * 100) / 100).join(' ');

interface Round { mode: 'on' | 'off'; batchS: number; cpuMsPerOp: { worker: number; api: number }; scrapes: number }

/** Scrapes both /metrics every 5 s until stopped; resolves with the number of scrapes. */
function scraping(urls: string[]): () => Promise<number> {
  let n = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const u of urls) {
        const r = await fetch(u);
        if (r.status !== 200) throw new Error(`${u}: ${r.status}`);
        await r.text();
        n++;
      }
      await new Promise((r) => setTimeout(r, 5_000));
    }
  })();
  return async () => { stopped = true; await loop; return n; };
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  log(`load average ${load()}; starting the product ...`);
  const product = await startProduct();
  const workerPort = await freePort();
  let connection: Connection | undefined;
  const rounds: Round[] = [];
  try {
    connection = await Connection.connect({ address: product.temporalAddress });
    const client = new Client({ connection });
    const api = new Api(product.apiUrl, product.admin);
    const vnfdId = await api.onboardSample();
    const inst = instantiateOperation(api, client, vnfdId, new Map());
    for (let i = 0; i < ROUNDS; i++) {
      for (const mode of (i % 2 ? ['off', 'on'] : ['on', 'off']) as ('on' | 'off')[]) {
        await product.restartWorkerAndApi(mode === 'on' ? { METRICS: 'on', WORKER_METRICS_PORT: String(workerPort) } : { METRICS: 'off' });
        await warmUp(inst, 1);
        const scrapes = mode === 'on' ? scraping([`${product.apiUrl}/metrics`, `http://127.0.0.1:${workerPort}/metrics`]) : async () => 0;
        const t = await throughput(inst, CONCURRENCY, () => cpuMeter({ worker: product.pids.worker, api: product.pids.api }));
        const round: Round = {
          mode, batchS: Math.round(t.elapsedMs / 100) / 10, scrapes: await scrapes(),
          cpuMsPerOp: { worker: Math.round((t.cpuSeconds.worker * 1000) / CONCURRENCY), api: Math.round((t.cpuSeconds.api * 1000) / CONCURRENCY) },
        };
        rounds.push(round);
        log(`metrics ${mode}: batch of ${CONCURRENCY} ${round.batchS} s, CPU per instantiate worker ${round.cpuMsPerOp.worker} ms, API ${round.cpuMsPerOp.api} ms (${round.scrapes} scrapes); load ${load()}`);
      }
    }
  } finally {
    await connection?.close();
    await product.stop();
  }
  const median = (mode: 'on' | 'off', f: (r: Round) => number) => percentile(rounds.filter((r) => r.mode === mode).map(f), 50);
  const row = (what: string, f: (r: Round) => number) => {
    const on = median('on', f);
    const off = median('off', f);
    console.log(`${what.padEnd(34)} ${String(off).padStart(8)} ${String(on).padStart(8)} ${(Math.round((on / off) * 100) / 100).toFixed(2).padStart(8)}`);
  };
  console.log(`\nmetrics cost, ${ROUNDS} rounds per mode in turns, batches of ${CONCURRENCY} instantiates, Heat sleep scale ${product.heatSleepScale}; medians`);
  console.log(`${''.padEnd(34)} ${'off'.padStart(8)} ${'on'.padStart(8)} ${'on/off'.padStart(8)}`);
  row('batch (s)', (r) => r.batchS);
  row('worker CPU per instantiate (ms)', (r) => r.cpuMsPerOp.worker);
  row('API CPU per instantiate (ms)', (r) => r.cpuMsPerOp.api);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
