/** Latency at concurrency 1 and throughput at concurrency c of any operation. */

export interface Operation<T> {
  /** Untimed preparation (e.g. creating the VNF instance). */
  prepare(): Promise<T>;
  /** The timed part; resolves with the workflow id once the workflow has completed. */
  run(prepared: T): Promise<string>;
}

export interface LatencyResult { runs: number; medianMs: number; p90Ms: number; minMs: number; maxMs: number; samplesMs: number[]; workflowIds: string[]; warmupIds: string[] }
export interface ThroughputResult {
  concurrency: number; elapsedMs: number; opsPerSec: number; medianMs: number; maxMs: number;
  /** When the batch started (epoch ms), to place other clocks' events (Heat's) in it. */
  startedAt: number;
  /** Ids the operations resolved with (workflow ids, stack names). */
  ids: string[];
  /** CPU seconds each process used during the timed batch. */
  cpuSeconds: Record<string, number>;
}

/** Nearest-rank percentile. */
export function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil((p / 100) * s.length) - 1)];
}

const round = (n: number) => Math.round(n * 10) / 10;

/**
 * An operation not done by then fails the run (e.g. an op stuck in FAILED_TEMP
 * waits for an operator forever). Real Heat at stock speed with 50 stacks at
 * once needs minutes: BENCH_OP_DEADLINE_S, default 900.
 */
const OP_DEADLINE_MS = Number(process.env.BENCH_OP_DEADLINE_S || '900') * 1000;

async function timed<T>(op: Operation<T>, prepared: T): Promise<{ ms: number; id: string }> {
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`an operation did not finish within ${OP_DEADLINE_MS / 1000} s`)), OP_DEADLINE_MS);
  });
  try {
    const id = await Promise.race([op.run(prepared), deadline]);
    return { ms: performance.now() - t0, id };
  } finally {
    clearTimeout(timer);
  }
}

/** `warmups` untimed runs, then `runs` sequential timed runs. */
export async function latency<T>(op: Operation<T>, warmups: number, runs: number): Promise<LatencyResult> {
  const warmupIds: string[] = [];
  for (let i = 0; i < warmups; i++) warmupIds.push((await timed(op, await op.prepare())).id);
  const samples: { ms: number; id: string }[] = [];
  for (let i = 0; i < runs; i++) samples.push(await timed(op, await op.prepare()));
  return latencyOf(samples, warmupIds);
}

function latencyOf(samples: { ms: number; id: string }[], warmupIds: string[]): LatencyResult {
  const ms = samples.map((s) => s.ms);
  return {
    runs: samples.length, medianMs: round(percentile(ms, 50)), p90Ms: round(percentile(ms, 90)),
    minMs: round(Math.min(...ms)), maxMs: round(Math.max(...ms)),
    samplesMs: ms.map(round), workflowIds: samples.map((s) => s.id), warmupIds,
  };
}

/** `warmups` untimed runs of each operation, in turn. */
export async function warmUp<T>(op: Operation<T>, warmups: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < warmups; i++) ids.push((await timed(op, await op.prepare())).id);
  return ids;
}

/**
 * Latency of several operations measured in turns (run i of each before run
 * i+1 of any), so that load drifting on a shared machine hits all of them alike.
 */
export async function latencyInterleaved(ops: Record<string, Operation<any>>, runs: number, warmupIds: Record<string, string[]> = {}): Promise<Record<string, LatencyResult>> {
  const samples: Record<string, { ms: number; id: string }[]> = Object.fromEntries(Object.keys(ops).map((k) => [k, []]));
  for (let i = 0; i < runs; i++) {
    for (const [k, op] of Object.entries(ops)) samples[k].push(await timed(op, await op.prepare()));
  }
  return Object.fromEntries(Object.entries(samples).map(([k, s]) => [k, latencyOf(s, warmupIds[k] ?? [])]));
}

/**
 * Prepares `concurrency` operations, then starts them all at once; ops/s over
 * the whole batch. `cpu` starts a CPU meter (see procs.ts) read at the end.
 */
export async function throughput<T>(op: Operation<T>, concurrency: number, cpu: () => () => Record<string, number>): Promise<ThroughputResult> {
  const prepared: T[] = [];
  for (let i = 0; i < concurrency; i++) prepared.push(await op.prepare());
  const cpuUsed = cpu();
  const startedAt = Date.now();
  const t0 = performance.now();
  const done = await Promise.all(prepared.map((p) => timed(op, p)));
  const elapsedMs = performance.now() - t0;
  const cpuSeconds = cpuUsed();
  const ms = done.map((d) => d.ms);
  return {
    concurrency, startedAt, elapsedMs: round(elapsedMs), opsPerSec: Math.round((concurrency * 1e6) / elapsedMs) / 1000, // 3 decimals: ratios of 0.1-rounded rates were off by up to 0.1
    medianMs: round(percentile(ms, 50)), maxMs: round(Math.max(...ms)), cpuSeconds, ids: done.map((d) => d.id),
  };
}
