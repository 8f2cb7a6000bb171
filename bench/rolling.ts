/**
 * Rolling update benchmark: `npx tsx bench/rolling.ts [N] [--parked M]`
 * (N default 20 or BENCH_N; M default 50 or BENCH_PARKED; --parked 0 skips it;
 * BENCH_HEAT_SLEEP_SCALE sets Heat's sleeps, default 1 = stock).
 *
 *  (b) one change_vnfpkg over N VDU1 VNFCs (embedded cloud: real Keystone and
 *      Heat, simulator at zero delay; in-process EM, sync CONTINUE): wall time,
 *      and events over the op workflow and all its child workflows (total, per
 *      VNFC, largest single run);
 *  (c) Heat alone: the same sequence of stack PATCHes sent straight to Heat
 *      with the product's HeatClient on a twin stack (template, files and
 *      parameters read back from Heat before and after (b)): one per VNFC
 *      putting it on the new image, newest VNFC first, then the full update
 *      to the new package, each waited for on the product's poll schedule;
 *  (a) bare Temporal in the same shape as (b)'s histories: a parent [looping
 *      over chunk workflows] looping over N per-VNFC child workflows, each run
 *      scheduling as many no-op activities as its (b) counterpart;
 *  then (b)/(a) and (b)/(c) per VNFC; and the worker's RSS with M ops parked on
 *  an EM that never decides. Writes bench/results/rolling-latest.json; see
 *  docs/benchmarks.md.
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
import { HeatDb, spread } from './heat-db';
import { directHeat, DirectHeat } from './heat-direct';
import type { StackTemplate } from '../infra/openstack/heat';
import { cpuMeter, rssAll } from './procs';
import { HEAT_POLL_MS, Product, startProduct } from './product';
import { ratio } from './report';
import { parkedOps, ParkedResult, printParked } from './rolling-parked';
import { BENCH_LEVEL, benchPackage } from './rolling-package';
import { sum, treeStats, TreeStats } from './rolling-histories';
import { awaitOp, changeBody, instantiated } from './rolling-ops';

const RESULTS = path.join(__dirname, 'results', 'rolling-latest.json');
const log = (m: string) => console.log(`[bench] ${new Date().toISOString().slice(11, 19)} ${m}`);
const load = () => os.loadavg().map((l) => Math.round(l * 100) / 100);

function args(): { n: number; parked: number } {
  const a = process.argv.slice(2);
  const i = a.indexOf('--parked');
  const parked = i >= 0 ? Number(a.splice(i, 2)[1]) : Number(process.env.BENCH_PARKED ?? 50);
  const n = Number(a[0] ?? process.env.BENCH_N ?? 20);
  if (!Number.isInteger(n) || n < 1 || !Number.isInteger(parked) || parked < 0) throw new Error('usage: bench/rolling.ts [N>=1] [--parked M>=0]');
  return { n, parked };
}

interface Side { ms: number; msPerVnfc: number; events: TreeStats; eventsPerVnfc: number; cpuSeconds?: Record<string, number> }
const side = (ms: number, n: number, events: TreeStats): Side => ({
  ms: Math.round(ms), msPerVnfc: Math.round((ms / n) * 10) / 10, events, eventsPerVnfc: Math.round((events.totalEvents / n) * 10) / 10,
});

/** The twin stack's nfv parameter (an object, or the JSON text Heat may give back). */
type Nfv = Record<string, Record<string, unknown>>;
const nfvOf = (p: StackTemplate['parameters']): Nfv => {
  const v = p?.nfv;
  return (typeof v === 'string' ? JSON.parse(v) : structuredClone(v)) as Nfv;
};

/**
 * The PATCHes the product sends for a rolling update over VDU1, as specs: per
 * VNFC, newest (highest index) first, the old template with that VNFC's and
 * all earlier-moved VNFCs' nfv entries (VDU1-i, VDU1_CP*-i) taken from the new
 * package's parameters (ops/vnflcm/change-vnfpkg/activities.ts applyPackageMix); then the
 * new package's whole stack.
 */
function rollingPatches(before: StackTemplate, after: StackTemplate, vdu = 'VDU1'): { steps: StackTemplate[]; indices: number[] } {
  const oldNfv = nfvOf(before.parameters);
  const newNfv = nfvOf(after.parameters);
  const re = new RegExp(`^${vdu}(?:_[^-]*)?-(\\d+)$`);
  const keysOf = new Map<number, [string, string][]>();
  for (const section of Object.keys(newNfv)) {
    for (const key of Object.keys(newNfv[section] ?? {})) {
      const m = re.exec(key);
      if (m) keysOf.set(Number(m[1]), [...(keysOf.get(Number(m[1])) ?? []), [section, key]]);
    }
  }
  const indices = [...keysOf.keys()].sort((x, y) => y - x);
  const nfv = structuredClone(oldNfv);
  const steps = indices.map((i) => {
    for (const [section, key] of keysOf.get(i)!) (nfv[section] ??= {})[key] = newNfv[section][key];
    const asText = typeof before.parameters?.nfv === 'string';
    return { template: before.template, files: before.files, parameters: { ...before.parameters, nfv: asText ? JSON.stringify(nfv) : structuredClone(nfv) } };
  });
  return { steps: [...steps, after], indices };
}

/** (c): the PATCHes one after the other on the twin stack, each waited for; ms of the sequence and GETs per update. */
async function heatAlone(direct: DirectHeat, twin: { name: string; id: string }, patches: StackTemplate[]): Promise<{ ms: number; polls: number[]; perPatchMs: number[] }> {
  const polls: number[] = [];
  const perPatchMs: number[] = [];
  const t0 = performance.now();
  for (const p of patches) {
    const t = performance.now();
    polls.push(await direct.update(twin.name, twin.id, p, HEAT_POLL_MS));
    perPatchMs.push(Math.round(performance.now() - t));
  }
  return { ms: performance.now() - t0, polls, perPatchMs };
}

function allPids(product: Product): Record<string, number> {
  const { temporal, keystone, heat, vimsim, worker, api } = product.pids;
  return { heat, keystone, vimsim, temporal, worker, api };
}

async function main(): Promise<void> {
  const { n, parked } = args();
  Runtime.install({ logger: new DefaultLogger('WARN') });
  process.env.EM_LOG_LEVEL ??= 'warn';
  const loadAtStart = load();
  log(`N = ${n} VNFCs, ${parked} parked ops; load average ${loadAtStart.join(' ')}; starting Temporal dev server, Keystone, Heat (sleep scale ${process.env.BENCH_HEAT_SLEEP_SCALE || '1'}), VIM simulator, worker, API, EM ...`);
  const product = await startProduct();
  const em = await startEm({});
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address: product.temporalAddress });
    const client = new Client({ connection });
    const api = new Api(product.apiUrl, product.admin);
    const direct = directHeat(product.admin);
    const pids = allPids(product);
    const [oldVnfd, newVnfd] = [await api.onboard(benchPackage('1.0', n).zip), await api.onboard(benchPackage('2.0', n).zip)];
    const deadline = 600_000 + n * 60_000;

    log(`instantiate at ${BENCH_LEVEL} (${n} VDU1 + 1 VDU2 VNFCs; not part of the figure)`);
    const inst = await instantiated(api, client, oldVnfd, BENCH_LEVEL, deadline);
    const stackName = `vnf-${inst.id}`;
    const before = await direct.readStack(stackName);
    log(`instantiated in ${inst.ms} ms; (c)'s twin stack from the same template, files and parameters (not part of the figure)`);
    let t0 = performance.now();
    const twin = await direct.create(before.spec, HEAT_POLL_MS, 'bench-twin');
    const twinCreateMs = Math.round(performance.now() - t0);
    log(`twin created in ${twinCreateMs} ms; (b) change_vnfpkg over VDU1 (${n} VNFCs); load ${load().join(' ')}`);

    let cpu = cpuMeter({ ...pids, 'bench (EM)': 'self' });
    t0 = performance.now();
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

    const after = await direct.readStack(stackName);
    const { steps, indices } = rollingPatches(before.spec, after.spec);
    if (indices.length !== n) log(`WARNING: ${indices.length} VNFCs found in the nfv parameter for ${n}`);
    log(`(c) Heat alone: ${steps.length} PATCHes (${indices.length} VNFCs, then the whole stack) on the twin; load ${load().join(' ')}`);
    cpu = cpuMeter({ ...pids, 'bench (client)': 'self' });
    const c0 = await heatAlone(direct, twin, steps);
    const c = { ms: Math.round(c0.ms), msPerVnfc: Math.round((c0.ms / n) * 10) / 10, cpuSeconds: cpu(), pollsPerUpdate: spread(c0.polls), perPatchMs: spread(c0.perPatchMs) };
    log(`Heat alone: ${c.ms} ms`);

    log(`(a) baseline: the same shape with no-op activities; load ${load().join(' ')}`);
    const a = await withBaselineWorker(product.temporalAddress, async () => {
      const aCpu = cpuMeter({ temporal: pids.temporal, 'bench (worker)': 'self' });
      const t = performance.now();
      const id = await runBaselineRolling(client, shape);
      const ms = performance.now() - t;
      return { ...side(ms, n, await treeStats(client, id)), cpuSeconds: aCpu() };
    });
    const rssAfterRolling = rssAll({ ...pids, bench: 'self' });
    const heatDb = new HeatDb(product.dataDir);
    const updates = (id: string) => heatDb.actions(id).filter((x) => x.action === 'UPDATE').map((x) => x.ms);
    const heatOwn = { b: spread(updates(before.id)), c: spread(updates(twin.id)), maxEventsPerStack: 1000 };
    heatDb.close();
    const parkedResult: ParkedResult | undefined = parked > 0 ? await parkedOps(product, api, client, em, oldVnfd, newVnfd, parked) : undefined;

    const result = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, loadavg: { start: loadAtStart, end: load() } },
      settings: { n, parked, heatSleepScale: product.heatSleepScale, temporalArgs: product.temporalArgs, vimsimDelayMs: 0, heatPollMs: HEAT_POLL_MS, em: 'in-process, sync CONTINUE' },
      instantiateMs: inst.ms, twinCreateMs,
      shape, activityTypesPerLevel: bEvents.levels.map((l) => l.activities),
      baseline: a, changeVnfpkg: b, heatAlone: c,
      /** Heat's own time per stack update (UPDATE_IN_PROGRESS -> UPDATE_COMPLETE), over the updates whose events Heat still keeps. */
      heatOwnUpdateMs: heatOwn,
      ratios: { msPerVnfc: ratio(b.msPerVnfc, a.msPerVnfc), eventsPerVnfc: ratio(b.eventsPerVnfc, a.eventsPerVnfc), vsHeat: ratio(b.msPerVnfc, c.msPerVnfc) },
      maxEventsSingleRun: b.events.maxEvents,
      rssMiB: rssAfterRolling,
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

type Spread = ReturnType<typeof spread>;
interface Printable {
  settings: { n: number; heatSleepScale: number; heatPollMs: number }; machine: { loadavg: unknown }; shape: RollingShape; baseline: Side; changeVnfpkg: Side;
  heatAlone: { ms: number; msPerVnfc: number; cpuSeconds: Record<string, number>; pollsPerUpdate: Spread; perPatchMs: Spread };
  heatOwnUpdateMs: { b: Spread; c: Spread }; ratios: Record<string, number>; rssMiB: Record<string, number>; parked?: ParkedResult;
  instantiateMs: number; twinCreateMs: number;
}

function printRolling(r: Printable): void {
  const { baseline: a, changeVnfpkg: b, heatAlone: c } = r;
  const line = (x: (string | number)[]) => x.map((v, i) => (i ? String(v).padStart(15) : String(v).padEnd(28))).join(' ');
  const sp = (s: Spread) => (s ? `mean ${s.meanMs}, median ${s.medianMs} (${s.minMs}..${s.maxMs}) over ${s.n}` : 'n/a');
  const cpu = (x: { cpuSeconds?: Record<string, number> }) => Object.entries(x.cpuSeconds ?? {}).map(([k, v]) => `${k} ${v}`).join(', ');
  console.log();
  console.log(`Heat sleep scale ${r.settings.heatSleepScale}, HEAT_POLL_MS ${r.settings.heatPollMs}, load average ${JSON.stringify(r.machine.loadavg)}; instantiate ${r.instantiateMs} ms, twin ${r.twinCreateMs} ms`);
  console.log(line([`N = ${r.settings.n}`, `(a) ${r.shape.leafActs} no-ops/VNFC`, '(b) change_vnfpkg', '(c) Heat alone', '(b)/(a)', '(b)/(c)']));
  console.log(line(['total time (ms)', a.ms, b.ms, c.ms, ratio(b.ms, a.ms), ratio(b.ms, c.ms)]));
  console.log(line(['time per VNFC (ms)', a.msPerVnfc, b.msPerVnfc, c.msPerVnfc, r.ratios.msPerVnfc, r.ratios.vsHeat]));
  console.log(line(['history events (all runs)', a.events.totalEvents, b.events.totalEvents, '', ratio(b.events.totalEvents, a.events.totalEvents), '']));
  console.log(line(['events per VNFC', a.eventsPerVnfc, b.eventsPerVnfc, '', r.ratios.eventsPerVnfc, '']));
  console.log(line(['max events in one run', a.events.maxEvents, b.events.maxEvents, '', '', '']));
  console.log(line(['runs per level', a.events.levels.map((l) => l.runs).join('/'), b.events.levels.map((l) => l.runs).join('/'), '', '', '']));
  const leaf = (x: Side) => { const l = x.events.levels[x.events.levels.length - 1]; return `${l.meanMs} ms ${JSON.stringify(l.meanActivityMs)}, ${Math.round((l.timers / l.runs) * 10) / 10} timers`; };
  console.log(`per-VNFC run, mean first-to-last event and activity time (scheduled -> completed):`);
  console.log(`  (a) ${leaf(a)}`);
  console.log(`  (b) ${leaf(b)}`);
  console.log(`(c) per PATCH + wait, ms: ${sp(c.perPatchMs)}; status GETs per update: ${sp(c.pollsPerUpdate)}`);
  console.log(`Heat's own time per update (UPDATE_IN_PROGRESS -> COMPLETE, updates still in its events), ms: (b) ${sp(r.heatOwnUpdateMs.b)}; (c) ${sp(r.heatOwnUpdateMs.c)}`);
  console.log(`CPU seconds: (a) ${cpu(a)}`);
  console.log(`             (b) ${cpu(b)}`);
  console.log(`             (c) ${cpu(c)}`);
  console.log(`RSS MiB after the rolling runs: ${Object.entries(r.rssMiB).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  if (r.parked) {
    console.log();
    printParked(r.parked);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
