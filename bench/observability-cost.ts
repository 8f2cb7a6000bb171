/**
 * What metrics and tracing cost an instantiate (issue 27): one product, its
 * worker and API restarted between rounds in three modes, in turns so that
 * drifting load hits all alike:
 *   off      METRICS=off and no OTLP endpoint: no instrumentation at all;
 *   metrics  metrics on (the SDK's exporter too), both /metrics scraped
 *            every 5 s as Prometheus would;
 *   traced   the same and OpenTelemetry tracing, exported by OTLP/HTTP to a
 *            receiver in this process that counts the spans.
 * Each round is a batch of BENCH_CONCURRENCY (default 10) instantiates at
 * once after one warm-up; measured: the batch's wall time and the CPU
 * seconds of the worker and the API per instantiate.
 *
 *   BENCH_HEAT_SLEEP_SCALE=0.05 npm run bench:observability
 *
 * Env: BENCH_ROUNDS (3 per mode), BENCH_CONCURRENCY (10), BENCH_HEAT_SLEEP_SCALE.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { Api, instantiateOperation } from './api';
import { percentile, throughput, warmUp } from './measure';
import { cpuMeter } from './procs';
import { startProduct } from './product';
import { freePort } from '@nfv-orchestrator/lib/free-port';

const ROUNDS = Number(process.env.BENCH_ROUNDS || '3');
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY || '10');
const log = (m: string) => console.log(`[bench] ${new Date().toISOString().slice(11, 19)} ${m}`);
const load = () => os.loadavg().map((l) => Math.round(l * 100) / 100).join(' ');

type Mode = 'off' | 'metrics' | 'traced';
const MODES: Mode[] = ['off', 'metrics', 'traced'];

interface Round { mode: Mode; batchS: number; cpuMsPerOp: { worker: number; api: number }; scrapes: number }

/** An OTLP/HTTP receiver that counts the spans it is sent (JSON encoding). */
async function spanCounter(): Promise<{ url: string; spans: () => number; close(): Promise<void> }> {
  let n = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      n += (body.match(/"spanId"/g) ?? []).length;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans: () => n, close: () => new Promise((r) => server.close(() => r())) };
}

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
  const collector = await spanCounter();
  try {
    connection = await Connection.connect({ address: product.temporalAddress });
    const client = new Client({ connection });
    const api = new Api(product.apiUrl, product.admin);
    const vnfdId = await api.onboardSample();
    const inst = instantiateOperation(api, client, vnfdId, new Map());
    for (let i = 0; i < ROUNDS; i++) {
      // each round starts with another mode: none is always first or last
      for (const mode of [...MODES.slice(i % 3), ...MODES.slice(0, i % 3)]) {
        const env: Record<string, string> = mode === 'off' ? { METRICS: 'off', OTEL_EXPORTER_OTLP_ENDPOINT: '' }
          : { METRICS: 'on', WORKER_METRICS_PORT: String(workerPort), OTEL_EXPORTER_OTLP_ENDPOINT: mode === 'traced' ? collector.url : '' };
        await product.restartWorkerAndApi(env);
        await warmUp(inst, 1);
        const spansBefore = collector.spans();
        const scrapes = mode === 'off' ? async () => 0 : scraping([`${product.apiUrl}/metrics`, `http://127.0.0.1:${workerPort}/metrics`]);
        const t = await throughput(inst, CONCURRENCY, () => cpuMeter({ worker: product.pids.worker, api: product.pids.api }));
        const round: Round = {
          mode, batchS: Math.round(t.elapsedMs / 100) / 10, scrapes: await scrapes(),
          cpuMsPerOp: { worker: Math.round((t.cpuSeconds.worker * 1000) / CONCURRENCY), api: Math.round((t.cpuSeconds.api * 1000) / CONCURRENCY) },
        };
        rounds.push(round);
        log(`${mode}: batch of ${CONCURRENCY} ${round.batchS} s, CPU per instantiate worker ${round.cpuMsPerOp.worker} ms, API ${round.cpuMsPerOp.api} ms (${round.scrapes} scrapes, ${collector.spans() - spansBefore} spans so far); load ${load()}`);
      }
    }
  } finally {
    await connection?.close();
    await product.stop();
    await collector.close();
  }
  const median = (mode: Mode, f: (r: Round) => number) => percentile(rounds.filter((r) => r.mode === mode).map(f), 50);
  const row = (what: string, f: (r: Round) => number) => {
    const [off, metrics, traced] = MODES.map((m) => median(m, f));
    const x = (v: number) => (Math.round((v / off) * 100) / 100).toFixed(2);
    console.log(`${what.padEnd(34)} ${[off, metrics, traced, x(metrics), x(traced)].map((v) => String(v).padStart(9)).join('')}`);
  };
  console.log(`\nobservability cost, ${ROUNDS} rounds per mode in turns, batches of ${CONCURRENCY} instantiates, Heat sleep scale ${product.heatSleepScale}; medians`);
  console.log(`${''.padEnd(34)} ${['off', 'metrics', 'traced', 'metr/off', 'trac/off'].map((v) => v.padStart(9)).join('')}`);
  row('batch (s)', (r) => r.batchS);
  row('worker CPU per instantiate (ms)', (r) => r.cpuMsPerOp.worker);
  row('API CPU per instantiate (ms)', (r) => r.cpuMsPerOp.api);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
