/**
 * Parked ops: M single-VNFC instances, then M change_vnfpkg ops whose
 * coordination the EM never decides (hang, Retry-After 30 s); the worker's RSS
 * before and once all M coordinations are PENDING; then every op is cancelled.
 */
import type { Client } from '@temporalio/client';
import type { Em } from '../em/server';
import type { Api } from './api';
import { cpuMeter, rssMiB } from './procs';
import type { Product } from './product';
import { changeBody, instantiated } from './rolling-ops';
import { pool } from './rolling-histories';

export interface ParkedResult {
  ops: number;
  instantiateSeconds: number;
  startSeconds: number;
  /** POSTs to change_vnfpkg until the EM holds all M coordinations PENDING. */
  parkSeconds: number;
  workerRssMiB: { beforeOps: number; parked: number; perParkedOpKiB: number };
  temporalRssMiB: { beforeOps: number; parked: number };
  heatRssMiB: { beforeOps: number; parked: number };
  /** CPU seconds per process from the first POST until all M are parked. */
  parkCpuSeconds: Record<string, number>;
  /** Ops that reached FAILED_TEMP after the cancel, and when the last did. */
  cancel: { failedTemp: number; seconds: number; emCancelled: number };
}

const PARK_TIMEOUT_S = 3600;
const log = (m: string) => console.log(`[bench] ${new Date().toISOString().slice(11, 19)} ${m}`);
const sec = (t0: number) => Math.round((performance.now() - t0) / 100) / 10;

async function until(what: string, deadlineMs: number, check: () => Promise<boolean> | boolean): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function parkedOps(product: Product, api: Api, client: Client, em: Em, oldVnfd: string, newVnfd: string, m: number): Promise<ParkedResult> {
  log(`parked: instantiating ${m} instances (instantiation_level_1, 10 at a time)`);
  let t0 = performance.now();
  const ids = await pool(Array.from({ length: m }), 10, () => instantiated(api, client, oldVnfd, 'instantiation_level_1', 300_000).then((r) => r.id));
  const instantiateSeconds = sec(t0);
  await new Promise((r) => setTimeout(r, 2000));
  const worker = product.pids.worker;
  const temporal = product.pids.temporal;
  const heat = product.pids.heat;
  const before = { worker: rssMiB(worker), temporal: Number.isFinite(temporal) ? rssMiB(temporal) : NaN, heat: rssMiB(heat) };
  const { keystone, vimsim } = product.pids;
  const cpu = cpuMeter({ heat, keystone, vimsim, temporal, worker, api: product.pids.api, 'bench (EM)': 'self' });

  em.setBehaviour({ mode: 'hang', retryAfter: '30' });
  log(`parked: starting ${m} change_vnfpkg ops, EM hangs (Retry-After 30 s)`);
  t0 = performance.now();
  const opIds = await pool(ids, 10, (id) => api.changeVnfpkg(id, changeBody(newVnfd, em.url, PARK_TIMEOUT_S)));
  const startSeconds = sec(t0);
  const mine = new Set(opIds);
  const pending = () => em.coordinations().filter((c) => mine.has(String(c.request.vnfLcmOpOccId)) && c.state === 'PENDING').length;
  await until(`${m} coordinations PENDING on the EM`, 600_000 + m * 600, () => pending() >= m);
  const parkSeconds = sec(t0);
  const parkCpuSeconds = cpu();
  await new Promise((r) => setTimeout(r, 5000)); // let the last workflow tasks complete
  const parked = { worker: rssMiB(worker), temporal: Number.isFinite(temporal) ? rssMiB(temporal) : NaN, heat: rssMiB(heat) };
  log(`parked: ${m} ops parked in ${parkSeconds} s; worker RSS ${before.worker} -> ${parked.worker} MiB`);

  log(`parked: cancelling ${m} ops`);
  t0 = performance.now();
  await pool(opIds, 10, (id) => api.cancel(id));
  let failedTemp = 0;
  await until(`${m} ops FAILED_TEMP after cancel`, 600_000 + m * 600, async () => {
    const states = await pool(opIds, 10, (id) => api.opOcc(id).then((o) => o.operationState));
    failedTemp = states.filter((s) => s === 'FAILED_TEMP').length;
    return failedTemp === m;
  }).catch((e) => log(`parked: ${(e as Error).message} (${failedTemp}/${m})`));
  const cancelSeconds = sec(t0);
  const emCancelled = em.coordinations().filter((c) => mine.has(String(c.request.vnfLcmOpOccId)) && c.cancelled).length;
  return {
    ops: m, instantiateSeconds, startSeconds, parkSeconds,
    workerRssMiB: { beforeOps: before.worker, parked: parked.worker, perParkedOpKiB: Math.round(((parked.worker - before.worker) * 1024) / m) },
    temporalRssMiB: { beforeOps: before.temporal, parked: parked.temporal },
    heatRssMiB: { beforeOps: before.heat, parked: parked.heat }, parkCpuSeconds,
    cancel: { failedTemp, seconds: cancelSeconds, emCancelled },
  };
}
