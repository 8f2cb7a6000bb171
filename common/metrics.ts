/**
 * The product's Prometheus metrics (prom-client), one registry per process:
 * the API serves it on /metrics, a worker on its probe and metrics port. No
 * label carries an id, a name or anything a caller chose: every label value
 * comes from a fixed list here or from the code (route templates, activity
 * types, operation names), so the number of series stays bounded however
 * many resources and tenants there are (test/component/metrics.test.ts).
 */
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** METRICS=off: no instrumentation at all, and no /metrics (bench/observability-cost.ts measures what it costs against this). */
export const metricsOn = process.env.METRICS !== 'off';

export const metricsRegistry = new Registry();
if (metricsOn) collectDefaultMetrics({ register: metricsRegistry });

const registers = [metricsRegistry];
/** Request and call latencies: 5 ms to 2 min. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Operation durations: 1 s to 2 h. */
const OPERATION_BUCKETS = [1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200];

export const httpRequests = new Counter({
  name: 'nfv_http_requests_total', help: 'API requests answered, by method, route template and status class.',
  labelNames: ['method', 'route', 'status_class'] as const, registers,
});
export const httpRequestDuration = new Histogram({
  name: 'nfv_http_request_duration_seconds', help: 'API request latency, by method, route template and status class.',
  labelNames: ['method', 'route', 'status_class'] as const, buckets: LATENCY_BUCKETS, registers,
});

export const lcmOperations = new Counter({
  name: 'nfv_lcm_operations_total',
  help: 'Lifecycle operations that reached a final state (FAILED_TEMP counts each time an operation parks there), by api, operation and state.',
  labelNames: ['api', 'operation', 'state'] as const, registers,
});
export const lcmOperationDuration = new Histogram({
  name: 'nfv_lcm_operation_duration_seconds', help: 'Lifecycle operations from start to their final state, by api and operation.',
  labelNames: ['api', 'operation'] as const, buckets: OPERATION_BUCKETS, registers,
});

export const outboundDuration = new Histogram({
  name: 'nfv_outbound_request_duration_seconds', help: 'Calls to the systems outside, by target and outcome (ok: an answer came; error: none did).',
  labelNames: ['target', 'outcome'] as const, buckets: LATENCY_BUCKETS, registers,
});

export const activityRetries = new Counter({
  name: 'nfv_activity_retries_total', help: 'Activity attempts after the first, by activity type.',
  labelNames: ['activity'] as const, registers,
});

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
/** A request's method as a label: one of the HTTP methods, else OTHER (a client may send any token). */
export const methodLabel = (m: string): string => ((HTTP_METHODS as readonly string[]).includes(m) ? m : 'OTHER');
export const statusClass = (status: number): string => `${Math.floor(status / 100)}xx`;

/** The outside systems a call can go to, as the outbound policy's purposes name them. */
export const OUTBOUND_TARGETS = ['heat', 'nova', 'neutron', 'keystone', 'kubernetes', 'ssh', 'coordination', 'notification', 'other'] as const;
export type OutboundTarget = typeof OUTBOUND_TARGETS[number];
const PURPOSE_TARGET: [RegExp, OutboundTarget][] = [
  [/orchestration/i, 'heat'],
  [/compute/i, 'nova'],
  [/network/i, 'neutron'],
  [/keystone|auth_url|identity/i, 'keystone'],
  [/kubernetes/i, 'kubernetes'],
  [/coordination|OAuth/i, 'coordination'],
  [/callbackUri|CADF/i, 'notification'],
];
/** The target label of a call made for `purpose` (common/outbound.ts's purposes). */
export function outboundTarget(purpose: string): OutboundTarget {
  return PURPOSE_TARGET.find(([re]) => re.test(purpose))?.[1] ?? 'other';
}

/** Times one outbound call: `await timed('heat', () => ...)`. An exception is an 'error'; any answer, even a 5xx, is 'ok'. */
export async function timedCall<T>(target: OutboundTarget, call: () => Promise<T>): Promise<T> {
  if (!metricsOn) return call();
  const end = outboundDuration.startTimer({ target });
  try {
    const r = await call();
    end({ outcome: 'ok' });
    return r;
  } catch (e) {
    end({ outcome: 'error' });
    throw e;
  }
}

/** An operation entered `state`; final states (not FAILED_TEMP) also record its duration from `startedAt`. */
export function countOperationEnd(o: { api: 'etsi' | 'magnum'; operation: string; state: string; final: boolean; startedAt?: string }): void {
  if (!metricsOn) return;
  lcmOperations.inc({ api: o.api, operation: o.operation, state: o.state });
  const started = o.startedAt ? Date.parse(o.startedAt) : NaN;
  if (o.final && Number.isFinite(started)) lcmOperationDuration.observe({ api: o.api, operation: o.operation }, Math.max(0, (Date.now() - started) / 1000));
}
