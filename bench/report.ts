/** The benchmark's result (as written to bench/results/latest.json) and its console report. */
import type { HistorySummary } from './history';
import type { LatencyResult, ThroughputResult } from './measure';

type Latency = Omit<LatencyResult, 'workflowIds' | 'warmupIds'>;
interface Side { latency: Latency; throughput: ThroughputResult; history: HistorySummary }

export interface BenchResult {
  date: string;
  machine: Record<string, unknown>;
  settings: Record<string, unknown>;
  activitiesPerInstantiate: number;
  baseline: Side;
  instantiate: Side;
  ratios: { latencyMedian: number; latencyP90: number; throughput: number };
  memory: {
    productWorkerRssMiB: { before: number; after: number };
    benchProcessRssMiB: { beforeBaselineWorker: number; after: number };
  };
}

export const ratio = (b: number, a: number) => Math.round((b / a) * 100) / 100;

export function printReport(r: BenchResult): void {
  const { baseline: a, instantiate: b } = r;
  const c = a.throughput.concurrency;
  const rows: [string, number, number, number][] = [
    ['latency c=1 median (ms)', a.latency.medianMs, b.latency.medianMs, r.ratios.latencyMedian],
    ['latency c=1 p90 (ms)', a.latency.p90Ms, b.latency.p90Ms, r.ratios.latencyP90],
    [`throughput c=${c} (ops/s)`, a.throughput.opsPerSec, b.throughput.opsPerSec, r.ratios.throughput],
    [`  per-op median at c=${c} (ms)`, a.throughput.medianMs, b.throughput.medianMs, ratio(b.throughput.medianMs, a.throughput.medianMs)],
  ];
  const w = [32, 16, 16, 10];
  const line = (cells: (string | number)[]) => cells.map((x, i) => (i === 0 ? String(x).padEnd(w[i]) : String(x).padStart(w[i]))).join(' ');
  const cpu = (t: ThroughputResult) => `${Object.entries(t.cpuSeconds).map(([k, v]) => `${k} ${v}`).join(', ')} in ${(t.elapsedMs / 1000).toFixed(1)} s wall`;
  const { productWorkerRssMiB: w1, benchProcessRssMiB: w2 } = r.memory;

  console.log();
  console.log(line(['', `(a) ${r.activitiesPerInstantiate} no-ops`, '(b) instantiate', '(b)/(a)']));
  for (const row of rows) console.log(line(row));
  console.log();
  console.log(`memory: product worker RSS ${w1.before} -> ${w1.after} MiB; bench process (in-process baseline worker) ${w2.beforeBaselineWorker} -> ${w2.after} MiB`);
  console.log(`c=1 histories, mean ms: (a) total ${a.history.meanTotalMs} = activities ${a.history.meanActivityMs} + timers ${a.history.meanTimerMs} + workflow tasks/dispatch ${a.history.meanOtherMs}`);
  console.log(`                        (b) total ${b.history.meanTotalMs} = activities ${b.history.meanActivityMs} + timers ${b.history.meanTimerMs} + workflow tasks/dispatch ${b.history.meanOtherMs}`);
  console.log(`(b) per instantiate: ${b.history.workflowTasks} workflow tasks, ${b.history.timers} timers, activities ${JSON.stringify(b.history.activityTypes)}`);
  console.log(`CPU seconds in the c=${c} batch: (a) ${cpu(a.throughput)}`);
  console.log(`                              (b) ${cpu(b.throughput)}`);
}
