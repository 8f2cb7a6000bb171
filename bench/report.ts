/** The benchmark's result (as written to bench/results/latest.json) and its console report. */
import type { HistorySummary } from './history';
import type { HeatRequestCount } from './heat-requests';
import type { LatencyResult, ThroughputResult } from './measure';

type Latency = Omit<LatencyResult, 'workflowIds' | 'warmupIds'>;
type Throughput = Omit<ThroughputResult, 'ids'>;
interface Side { latency: Latency; throughput: Throughput; history: HistorySummary }
interface HeatTimes { n: number; medianMs: number; minMs: number; maxMs: number; meanMs: number }

export interface BenchResult {
  date: string;
  machine: Record<string, unknown>;
  settings: Record<string, unknown>;
  activitiesPerInstantiate: number;
  baseline: Side;
  instantiate: Side;
  heatAlone: { latency: Latency; throughput: Throughput; pollsPerStack: number[] };
  /** Heat's own create time per stack (its first to last event), (b) the product's stacks, (c) the direct ones. */
  heatOwnMs: Record<'latency' | 'throughput', Record<'b' | 'c', HeatTimes | undefined>> & {
    /** The c=N batches in Heat: first and last stack begun, last completed, in ms after the batch started. */
    window: Record<'b' | 'c', { firstStartMs: number; lastStartMs: number; lastCompleteMs: number } | undefined>;
  };
  /** Heat API requests per operation in the throughput runs, from Heat's log (bench/heat-requests.ts). */
  heatCallsPerOp?: Record<'b' | 'c', HeatRequestCount>;
  /** Seconds after (b)'s batch began: its last workflow start, and its last first activity's schedule, start and answer. */
  productWindow?: Record<string, number | undefined>;
  ratios: {
    latencyMedian: number; latencyP90: number; throughput: number;
    vsHeat: { latencyMedian: number; latencyP90: number; throughput: number; perOpMedianAtConcurrency: number; throughputAbba?: { bMs: number[]; cMs: number[]; ratio: number } };
  };
  memory: {
    rssMiB: { before: Record<string, number>; after: Record<string, number> };
    productWorkerRssMiB: { before: number; after: number };
    benchProcessRssMiB: { beforeBaselineWorker: number; after: number };
  };
}

export const ratio = (b: number, a: number) => Math.round((b / a) * 100) / 100;
const sec = (ms: number) => (ms / 1000).toFixed(1);

export function printReport(r: BenchResult): void {
  const { baseline: a, instantiate: b, heatAlone: c } = r;
  const n = a.throughput.concurrency;
  const rows: (string | number)[][] = [
    ['latency c=1 median (ms)', a.latency.medianMs, b.latency.medianMs, c.latency.medianMs, r.ratios.latencyMedian, r.ratios.vsHeat.latencyMedian],
    ['latency c=1 p90 (ms)', a.latency.p90Ms, b.latency.p90Ms, c.latency.p90Ms, r.ratios.latencyP90, r.ratios.vsHeat.latencyP90],
    [`throughput c=${n} (ops/s)`, a.throughput.opsPerSec, b.throughput.opsPerSec, c.throughput.opsPerSec, r.ratios.throughput, r.ratios.vsHeat.throughput],
    [`  per-op median at c=${n} (ms)`, a.throughput.medianMs, b.throughput.medianMs, c.throughput.medianMs, ratio(b.throughput.medianMs, a.throughput.medianMs), r.ratios.vsHeat.perOpMedianAtConcurrency],
    [`  batch of ${n} (s)`, sec(a.throughput.elapsedMs), sec(b.throughput.elapsedMs), sec(c.throughput.elapsedMs), '', ''],
  ];
  const w = [32, 14, 16, 14, 9, 9];
  const line = (cells: (string | number)[]) => cells.map((x, i) => (i === 0 ? String(x).padEnd(w[i]) : String(x).padStart(w[i]))).join(' ');
  const cpu = (t: Throughput) => `${Object.entries(t.cpuSeconds).map(([k, v]) => `${k} ${v}`).join(', ')} in ${(t.elapsedMs / 1000).toFixed(1)} s wall`;
  const ht = (h?: HeatTimes) => (h ? `median ${h.medianMs} (${h.minMs}..${h.maxMs}) ms over ${h.n}` : 'n/a');
  const { before, after } = r.memory.rssMiB;

  console.log();
  console.log(`Heat sleep scale ${r.settings.heatSleepScale}, HEAT_POLL_MS ${r.settings.heatPollMs}, load average ${JSON.stringify(r.machine.loadavg)}`);
  console.log(line(['', `(a) ${r.activitiesPerInstantiate} no-ops`, '(b) instantiate', '(c) Heat alone', '(b)/(a)', '(b)/(c)']));
  for (const row of rows) console.log(line(row));
  console.log();
  console.log(`Heat's own create time (stack IN_PROGRESS -> COMPLETE): c=1 (b) ${ht(r.heatOwnMs.latency.b)}; (c) ${ht(r.heatOwnMs.latency.c)}`);
  console.log(`                                                      c=${n} (b) ${ht(r.heatOwnMs.throughput.b)}; (c) ${ht(r.heatOwnMs.throughput.c)}`);
  const win = (w: BenchResult['heatOwnMs']['window']['b'], endMs: number) => (w ? `Heat began the first stack at +${sec(w.firstStartMs)} s, the last at +${sec(w.lastStartMs)} s, completed the last at +${sec(w.lastCompleteMs)} s; batch ended +${sec(endMs)} s` : 'n/a');
  console.log(`c=${n} batch in Heat: (b) ${win(r.heatOwnMs.window.b, r.instantiate.throughput.elapsedMs)}`);
  console.log(`                    (c) ${win(r.heatOwnMs.window.c, r.heatAlone.throughput.elapsedMs)}`);
  if (r.heatCallsPerOp) console.log(`Heat API calls per operation at c=${n}: (b) ${r.heatCallsPerOp.b.total}, (c) ${r.heatCallsPerOp.c.total}`);
  console.log(`(c) status GETs per stack at c=1: ${c.pollsPerStack.join(' ')}`);
  console.log(`RSS MiB before -> after: ${Object.keys(after).map((k) => `${k} ${before[k]} -> ${after[k]}`).join(', ')} (bench before the baseline worker ${r.memory.benchProcessRssMiB.beforeBaselineWorker})`);
  console.log(`c=1 histories, mean ms: (a) total ${a.history.meanTotalMs} = activities ${a.history.meanActivityMs} + timers ${a.history.meanTimerMs} + workflow tasks/dispatch ${a.history.meanOtherMs}`);
  console.log(`                        (b) total ${b.history.meanTotalMs} = activities ${b.history.meanActivityMs} + timers ${b.history.meanTimerMs} + workflow tasks/dispatch ${b.history.meanOtherMs}`);
  console.log(`(b) per instantiate: ${b.history.activities} activities, ${b.history.workflowTasks} workflow tasks, ${b.history.timers} timers; activities of the first ${JSON.stringify(b.history.activityTypes)}`);
  console.log(`CPU seconds in the c=${n} batches: (a) ${cpu(a.throughput)}`);
  console.log(`                              (b) ${cpu(b.throughput)}`);
  console.log(`                              (c) ${cpu(c.throughput)}`);
}
