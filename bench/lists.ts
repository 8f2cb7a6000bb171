/**
 * `npm run bench:lists` (issue 24 item 2): the API with BENCH_LIST_INSTANCES
 * (default 50,000) VNF instances in its store. The product starts as in
 * the other benchmarks (bench/product.ts); one instance is created through
 * the API (its row gives the project and package), the rest are written
 * into the product's store in batches, as many instances of that project.
 * Then, all against the same API in the same run:
 *  - the first page of the plain list, of a list filtered on a column, of a
 *    list filtered on a member of a JSON column, and of a filter that
 *    matches one row only (the store reads the whole index for it): p50,
 *    p90, p99 of BENCH_LIST_RUNS sequential calls each, and the bytes of a
 *    page (against the whole list the API answered before paging);
 *  - GET of one instance at BENCH_LIST_RATE requests per second (default
 *    200) for BENCH_LIST_SECONDS (10), interleaved with /healthz at the
 *    same rate: p99 of each and their ratio (the issue: at most 2).
 * Results go to bench/results/lists-latest.json (not committed).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { openStore } from '../store';
import { KeystoneSession } from '../infra/openstack/keystone';
import { Api } from './api';
import { percentile } from './measure';
import { rssMiB } from './procs';
import { startProduct } from './product';

const INSTANCES = Number(process.env.BENCH_LIST_INSTANCES || 50_000);
const RUNS = Number(process.env.BENCH_LIST_RUNS || 300);
const RATE = Number(process.env.BENCH_LIST_RATE || 200);
const SECONDS = Number(process.env.BENCH_LIST_SECONDS || 10);

interface Latency { p50: number; p90: number; p99: number; max: number; bytes: number; items: number }

const ms = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e6;
const round = (n: number) => Math.round(n * 10) / 10;

function summary(samples: number[], bytes: number, items: number): Latency {
  return { p50: round(percentile(samples, 50)), p90: round(percentile(samples, 90)), p99: round(percentile(samples, 99)), max: round(Math.max(...samples)), bytes, items };
}

async function main(): Promise<void> {
  const product = await startProduct();
  try {
    const api = new Api(product.apiUrl, product.admin);
    const session = new KeystoneSession({ authUrl: product.admin.authUrl, username: 'admin', password: product.admin.password, project: 'admin' });
    const headers = { 'x-auth-token': (await session.getToken()).value };
    const vnfdId = await api.onboardSample();
    const first = await api.createInstance(vnfdId);

    // the rest straight into the store: as the API would have written them, one project, creation times 1 ms apart
    const store = await openStore({ dataDir: product.dataDir });
    const started = Date.now();
    try {
      const row = await store.read(async ({ db, t }) => (await db.select().from(t.vnfInstances))[0]);
      if (row?.id !== first) throw new Error('the instance created through the API is not in the store');
      const base = Date.parse(row.createdAt);
      for (let from = 1; from < INSTANCES; from += 1000) {
        const batch = Array.from({ length: Math.min(1000, INSTANCES - from) }, (_, k) => {
          const i = from + k;
          return {
            ...row, id: crypto.randomUUID(), vnfInstanceName: `bench-${i}`, createdAt: new Date(base + i).toISOString(),
            instantiationState: i % 2 ? 'INSTANTIATED' as const : 'NOT_INSTANTIATED' as const, metadata: { tier: i % 10 ? 'silver' : 'gold' },
          };
        });
        await store.tx(async ({ db, t }) => { await db.insert(t.vnfInstances).values(batch); });
      }
    } finally {
      await store.close();
    }
    console.log(`${INSTANCES} instances in the store in ${Date.now() - started} ms`);

    const get = async (p: string): Promise<{ ms: number; bytes: number; items: number }> => {
      const t0 = process.hrtime.bigint();
      const r = await fetch(`${product.apiUrl}${p}`, { headers });
      const body = await r.text();
      const took = ms(t0);
      if (r.status !== 200) throw new Error(`GET ${p}: ${r.status} ${body.slice(0, 300)}`);
      return { ms: took, bytes: body.length, items: body.startsWith('[') ? (JSON.parse(body) as unknown[]).length : 1 };
    };
    const lists: Record<string, string> = {
      'plain list': '/vnflcm/v1/vnf_instances',
      'filter on a column': `/vnflcm/v1/vnf_instances?filter=${encodeURIComponent('(eq,instantiationState,INSTANTIATED)')}`,
      'filter on a JSON member': `/vnflcm/v1/vnf_instances?filter=${encodeURIComponent('(eq,metadata/tier,gold)')}`,
      'filter matching one row': `/vnflcm/v1/vnf_instances?filter=${encodeURIComponent(`(eq,vnfInstanceName,bench-${INSTANCES - 1})`)}`,
    };
    const listResults: Record<string, Latency> = {};
    for (const [name, p] of Object.entries(lists)) {
      for (let i = 0; i < 10; i++) await get(p); // warm-up
      const samples: number[] = [];
      let last = { bytes: 0, items: 0 };
      for (let i = 0; i < RUNS; i++) {
        const r = await get(p);
        samples.push(r.ms);
        last = r;
      }
      listResults[name] = summary(samples, last.bytes, last.items);
    }

    // GET one instance and /healthz, each at RATE per second, interleaved (open loop: a slow answer does not slow the schedule)
    const ids = await (async () => {
      const r = await fetch(`${product.apiUrl}/vnflcm/v1/vnf_instances?filter=${encodeURIComponent('(cont,vnfInstanceName,bench-1)')}`, { headers });
      return ((await r.json()) as { id: string }[]).map((i) => i.id);
    })();
    const one: number[] = [];
    const health: number[] = [];
    const pending: Promise<void>[] = [];
    const interval = 1000 / RATE;
    const t0 = Date.now();
    for (let k = 0; k < RATE * SECONDS; k++) {
      const due = t0 + k * interval;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pending.push(get(`/vnflcm/v1/vnf_instances/${ids[k % ids.length]}`).then((r) => { one.push(r.ms); }));
      pending.push(get('/healthz').then((r) => { health.push(r.ms); }));
    }
    await Promise.all(pending);
    const oneResult = summary(one, 0, 1);
    const healthResult = summary(health, 0, 0);

    const result = {
      date: new Date().toISOString(), instances: INSTANCES, runs: RUNS, rate: RATE, seconds: SECONDS, loadavg: fs.readFileSync('/proc/loadavg', 'utf8').trim(),
      apiRssMiB: rssMiB(product.pids.api), lists: listResults, getOne: oneResult, healthz: healthResult, getOneOverHealthzP99: round(oneResult.p99 / healthResult.p99),
    };
    console.log(`\nfirst pages with ${INSTANCES} instances (${RUNS} sequential calls each, ms):`);
    console.log('| list | p50 | p90 | p99 | max | items | bytes |\n|---|---|---|---|---|---|---|');
    for (const [name, r] of Object.entries(listResults)) console.log(`| ${name} | ${r.p50} | ${r.p90} | ${r.p99} | ${r.max} | ${r.items} | ${r.bytes} |`);
    console.log(`\nGET one instance and /healthz at ${RATE}/s each for ${SECONDS} s (ms):`);
    console.log('| call | p50 | p90 | p99 | max |\n|---|---|---|---|---|');
    for (const [name, r] of [['GET one instance', oneResult], ['/healthz', healthResult]] as const) console.log(`| ${name} | ${r.p50} | ${r.p90} | ${r.p99} | ${r.max} |`);
    console.log(`\nGET one p99 / healthz p99: ${result.getOneOverHealthzP99}; API RSS ${result.apiRssMiB} MiB; load ${result.loadavg}`);
    const out = path.resolve(__dirname, 'results', 'lists-latest.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(result, null, 2));
  } finally {
    await product.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
