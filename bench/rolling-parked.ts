/**
 * Parked ops: M single-VNFC instances, then M change_vnfpkg ops whose
 * coordination the EM holds (hang, Retry-After 30 s); the worker's RSS
 * before and once all M coordinations are PENDING; then every op is either
 * cancelled (`end: 'cancel'`, FAILED_TEMP) or released by the EM and run to
 * COMPLETED (`end: 'complete'`), the worker's RSS sampled every second.
 */
import type { Client } from '@temporalio/client';
import { HeatRequests, perOp, type HeatRequestCount } from './heat-requests';
import type { Em } from '../em/server';
import type { Api } from './api';
import { cpuMeter, rssMiB } from './procs';
import { heapAfterGc, type HeapBreakdown } from './worker-heap';
import type { Product } from './product';
import { changeBody, instantiated } from './rolling-ops';
import { pool } from './rolling-histories';

export interface ParkedResult {
  ops: number;
  instantiateSeconds: number;
  startSeconds: number;
  /** Heat API requests per op (bench/heat-requests.ts). */
  heatCallsPerOp: { instantiate: HeatRequestCount; untilParked: HeatRequestCount };
  /** POSTs to change_vnfpkg until the EM holds all M coordinations PENDING. */
  parkSeconds: number;
  workerRssMiB: { beforeOps: number; parked: number; perParkedOpKiB: number };
  /** The same two moments after a forced collection in each of the worker's isolates (bench/worker-heap.ts). */
  workerAfterGc: { beforeOps: HeapBreakdown; parked: HeapBreakdown; addedMiB: number };
  temporalRssMiB: { beforeOps: number; parked: number };
  heatRssMiB: { beforeOps: number; parked: number };
  /** CPU seconds per process from the first POST until all M are parked. */
  parkCpuSeconds: Record<string, number>;
  /** Ops that reached FAILED_TEMP after the cancel, and when the last did. */
  cancel?: { failedTemp: number; seconds: number; emCancelled: number };
  /** Ops COMPLETED after the EM decided CONTINUE, when the last did, and the worker meanwhile (peak of 1 s samples) and after. */
  complete?: { completed: number; seconds: number; workerPeakRssMiB: number; workerAfterRssMiB: number; cpuSeconds: Record<string, number> };
}

const PARK_TIMEOUT_S = 3600;
const log = (m: string) => console.log(`[bench] ${new Date().toISOString().slice(11, 19)} ${m}`);
const sec = (t0: number) => Math.round((performance.now() - t0) / 100) / 10;

/** Ops updating their stack at once while the others park. */
const PARKING_AT_ONCE = 20;

async function until(what: string, deadlineMs: number, check: () => Promise<boolean> | boolean): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function parkedOps(product: Product, api: Api, client: Client, em: Em, oldVnfd: string, newVnfd: string, m: number, endOps: 'cancel' | 'complete' = 'cancel'): Promise<ParkedResult> {
  log(`parked: instantiating ${m} instances (instantiation_level_1, 10 at a time)`);
  let t0 = performance.now();
  const heatCalls = HeatRequests.ofProduct(product.dataDir);
  const ids = await pool(Array.from({ length: m }), 10, () => instantiated(api, client, oldVnfd, 'instantiation_level_1', 300_000).then((r) => r.id));
  const instantiateSeconds = sec(t0);
  const instantiateCalls = perOp(heatCalls.take(), m);
  log(`parked: ${instantiateCalls.total} Heat API calls per instantiate ${JSON.stringify(instantiateCalls.byKind)}`);
  await new Promise((r) => setTimeout(r, 2000));
  const worker = product.pids.worker;
  const temporal = product.pids.temporal;
  const heat = product.pids.heat;
  const before = { worker: rssMiB(worker), temporal: Number.isFinite(temporal) ? rssMiB(temporal) : NaN, heat: rssMiB(heat) };
  const beforeGc = await heapAfterGc(worker);
  log(`parked: before the ops, after GC: worker ${JSON.stringify(beforeGc)}`);
  const { keystone, vimsim } = product.pids;
  const cpuOf = () => cpuMeter({ heat, keystone, vimsim, temporal, worker, api: product.pids.api, 'bench (EM)': 'self' });
  const cpu = cpuOf();

  em.setBehaviour({ mode: 'hang', retryAfter: '30' });
  log(`parked: starting ${m} change_vnfpkg ops, ${PARKING_AT_ONCE} at a time, each until it is parked; EM hangs (Retry-After 30 s)`);
  t0 = performance.now();
  const parkedOn = () => new Set(em.coordinations().filter((c) => c.state === 'PENDING').map((c) => String(c.request.vnfLcmOpOccId)));
  // Paced as operators roll a fleet: a thousand stack updates sent at once swamp the one Heat engine, and the ops
  // still updating (not parked) are what the worker must keep awake.
  const opIds = await pool(ids, PARKING_AT_ONCE, async (id) => {
    const opId = await api.changeVnfpkg(id, changeBody(newVnfd, em.url, PARK_TIMEOUT_S));
    await until(`op ${opId} parked on the EM`, 600_000, () => parkedOn().has(opId));
    return opId;
  });
  const startSeconds = sec(t0);
  const mine = new Set(opIds);
  const pending = () => em.coordinations().filter((c) => mine.has(String(c.request.vnfLcmOpOccId)) && c.state === 'PENDING').length;
  await until(`${m} coordinations PENDING on the EM`, 600_000, () => pending() >= m);
  const parkSeconds = sec(t0);
  const parkCalls = perOp(heatCalls.take(), m);
  log(`parked: ${parkCalls.total} Heat API calls per change_vnfpkg op until parked ${JSON.stringify(parkCalls.byKind)}`);
  const parkCpuSeconds = cpu();
  await new Promise((r) => setTimeout(r, 5000)); // let the last workflow tasks complete
  const parked = { worker: rssMiB(worker), temporal: Number.isFinite(temporal) ? rssMiB(temporal) : NaN, heat: rssMiB(heat) };
  log(`parked: ${m} ops parked in ${parkSeconds} s; worker RSS ${before.worker} -> ${parked.worker} MiB`);
  const parkedGc = await heapAfterGc(worker);
  log(`parked: after GC: worker ${JSON.stringify(parkedGc)}`);
  const hold = Number(process.env.BENCH_PARKED_HOLD_S || 0); // time to look into the worker by hand (an inspector, a heap snapshot)
  if (hold > 0) (log(`parked: holding ${hold} s (worker pid ${worker})`), await new Promise((r) => setTimeout(r, hold * 1000)));

  const end = endOps === 'cancel' ? { cancel: await cancelAll(api, em, opIds, mine) } : { complete: await completeAll(product, api, em, opIds, cpuOf) };
  return {
    ops: m, instantiateSeconds, startSeconds, parkSeconds, heatCallsPerOp: { instantiate: instantiateCalls, untilParked: parkCalls },
    workerRssMiB: { beforeOps: before.worker, parked: parked.worker, perParkedOpKiB: Math.round(((parked.worker - before.worker) * 1024) / m) },
    workerAfterGc: { beforeOps: beforeGc, parked: parkedGc, addedMiB: Math.round((parkedGc.rssMiB - beforeGc.rssMiB) * 10) / 10 },
    temporalRssMiB: { beforeOps: before.temporal, parked: parked.temporal },
    heatRssMiB: { beforeOps: before.heat, parked: parked.heat }, parkCpuSeconds,
    ...end,
  };
}

async function cancelAll(api: Api, em: Em, opIds: string[], mine: Set<string>): Promise<NonNullable<ParkedResult['cancel']>> {
  const m = opIds.length;
  log(`parked: cancelling ${m} ops`);
  const t0 = performance.now();
  await pool(opIds, 10, (id) => api.cancel(id));
  let failedTemp = 0;
  await until(`${m} ops FAILED_TEMP after cancel`, 600_000 + m * 600, async () => {
    failedTemp = (await states(api, opIds)).filter((s) => s === 'FAILED_TEMP').length;
    return failedTemp === m;
  }).catch((e) => log(`parked: ${(e as Error).message} (${failedTemp}/${m})`));
  const emCancelled = em.coordinations().filter((c) => mine.has(String(c.request.vnfLcmOpOccId)) && c.cancelled).length;
  return { failedTemp, seconds: sec(t0), emCancelled };
}

/** The EM decides CONTINUE; each parked VNFC run wakes at its next poll (a replay when the worker evicted it) and the op completes. */
async function completeAll(product: Product, api: Api, em: Em, opIds: string[], cpuOf: () => () => Record<string, number>): Promise<NonNullable<ParkedResult['complete']>> {
  const m = opIds.length;
  const worker = product.pids.worker;
  em.setBehaviour({ mode: 'sync', result: 'CONTINUE' });
  const t0 = performance.now();
  const cpu = cpuOf();
  log(`parked: the EM decides CONTINUE, ${PARKING_AT_ONCE} ops at a time, each until it is COMPLETED (its last step is a full stack update)`);
  let peak = rssMiB(worker);
  const sampler = setInterval(() => { peak = Math.max(peak, rssMiB(worker)); }, 1000);
  let completed = 0;
  try {
    await pool(opIds, PARKING_AT_ONCE, async (opId) => {
      em.decidePending('CONTINUE', opId);
      await until(`op ${opId} COMPLETED`, 600_000, async () => {
        const op = await api.opOcc(opId);
        const state = String(op.operationState);
        // the reason goes with it: the bench's data directory (logs, store) is removed at its end
        if (state !== 'COMPLETED' && state !== 'PROCESSING') throw new Error(`op ${opId} ended ${state}: ${op.error?.detail ?? '(no error detail)'}`);
        return state === 'COMPLETED';
      });
      completed += 1;
    }).catch((e) => log(`parked: ${(e as Error).message} (${completed}/${m} COMPLETED)`));
  } finally {
    clearInterval(sampler);
  }
  const seconds = sec(t0);
  const cpuSeconds = cpu();
  await new Promise((r) => setTimeout(r, 5000));
  return { completed, seconds, workerPeakRssMiB: peak, workerAfterRssMiB: rssMiB(worker), cpuSeconds };
}

const states = (api: Api, opIds: string[]) => pool(opIds, 10, (id) => api.opOcc(id).then((o) => String(o.operationState)));

export function printParked(p: ParkedResult): void {
  const cpu = (c: Record<string, number>) => Object.entries(c).map(([k, v]) => `${k} ${v}`).join(', ');
  console.log(`parked ops: ${p.ops}; worker RSS ${p.workerRssMiB.beforeOps} -> ${p.workerRssMiB.parked} MiB (${p.workerRssMiB.perParkedOpKiB} KiB per op); Temporal ${p.temporalRssMiB.beforeOps} -> ${p.temporalRssMiB.parked} MiB; Heat ${p.heatRssMiB.beforeOps} -> ${p.heatRssMiB.parked} MiB`);
  const g = p.workerAfterGc;
  const heaps = (h: HeapBreakdown) => `RSS ${h.rssMiB} MiB (main heap ${h.mainMiB}, threads ${h.threadsMiB.join(' + ')})`;
  console.log(`  after a forced GC: ${heaps(g.beforeOps)} -> ${heaps(g.parked)}: +${g.addedMiB} MiB`);
  console.log(`  instantiate ${p.instantiateSeconds} s, POSTs ${p.startSeconds} s, all PENDING after ${p.parkSeconds} s (CPU ${cpu(p.parkCpuSeconds)})`);
  if (p.cancel) console.log(`  cancel: ${p.cancel.failedTemp} FAILED_TEMP in ${p.cancel.seconds} s, ${p.cancel.emCancelled} cancelled on the EM`);
  if (p.complete) console.log(`  complete: ${p.complete.completed} COMPLETED in ${p.complete.seconds} s; worker RSS peak ${p.complete.workerPeakRssMiB} MiB, after ${p.complete.workerAfterRssMiB} MiB (CPU ${cpu(p.complete.cpuSeconds)})`);
}
