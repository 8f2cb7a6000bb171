/**
 * The schedule of a stack wait's status polls (pure, no Temporal): the
 * product's waits (stack.ts pollStack) and the benchmark's Heat-alone client
 * (bench/heat-direct.ts) poll by the same rule.
 */

/** The longest interval between two polls when HEAT_POLL_MAX_MS is not given. */
export const HEAT_POLL_MAX_MS_DEFAULT = 15_000;

/**
 * The wait before the next poll: the backoff's `interval`, but no shorter than half the time since the request
 * that started the action was sent (`sinceSentMs`, when known): a Heat that took 20 s to accept the POST is not
 * done 50 ms later, and each needless poll costs Heat a stack load and the worker a workflow task.
 */
export function pollDelay(interval: number, maxMs: number, sinceSentMs?: number): number {
  return sinceSentMs === undefined ? interval : Math.min(Math.max(interval, Math.ceil(sinceSentMs / 2)), maxMs);
}

/** The backoff's interval after `interval`: x1.5, up to `maxMs`. */
export function nextInterval(interval: number, maxMs: number): number {
  return Math.min(Math.ceil(interval * 1.5), maxMs);
}
