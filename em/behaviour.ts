/**
 * How the reference EM answers a coordination request. One behaviour is set
 * per EM (startEm({behaviour}), setBehaviour, POST /em/behaviour) and any
 * request may override it with LcmCoordRequest.inputParams.emBehaviour (same
 * shape).
 *
 * - sync:  201 + LcmCoord with `result`.
 * - busy:  503 + ProblemDetails + Retry-After for the first `times` POSTs of
 *          the same coordination key, then behaves as `then`.
 * - async: 202 + Location + Retry-After; GET answers 202 for the first `polls`
 *          GETs or until `delayMs` passed since the POST (whichever comes
 *          first), then 200 + LcmCoord with `result`. Neither given: polls 1.
 * - hang:  like async, but never decides; only a cancel ends it (CANCELLED).
 * - error: answers every POST with `status` + ProblemDetails (client error
 *          handling); no coordination is created.
 */
import { z } from 'zod';

export type RetryAfter = string | number;
export type DecidedResult = 'CONTINUE' | 'ABORT';

interface ResultExtras {
  /** Copied into LcmCoord.outputParams. */
  outputParams?: Record<string, unknown>;
  /** Copied into LcmCoord.warnings. */
  warnings?: string;
}
export interface SyncBehaviour extends ResultExtras { mode: 'sync'; result: DecidedResult }
export interface BusyBehaviour { mode: 'busy'; times: number; retryAfter?: RetryAfter; then: Behaviour }
export interface AsyncBehaviour extends ResultExtras {
  mode: 'async';
  result: DecidedResult;
  polls?: number;
  delayMs?: number;
  retryAfter?: RetryAfter;
}
export interface HangBehaviour { mode: 'hang'; retryAfter?: RetryAfter }
export interface ErrorBehaviour { mode: 'error'; status: number; detail?: string; retryAfter?: RetryAfter }
export type Behaviour = SyncBehaviour | BusyBehaviour | AsyncBehaviour | HangBehaviour | ErrorBehaviour;

export const DEFAULT_BEHAVIOUR: Behaviour = { mode: 'sync', result: 'CONTINUE' };
export const DEFAULT_RETRY_AFTER = '1';

/** RFC 9110 Retry-After: delay-seconds or an HTTP-date. */
export function isRetryAfter(v: string): boolean {
  return /^\d+$/.test(v) || (/[A-Za-z]/.test(v) && !Number.isNaN(Date.parse(v)));
}

const RetryAfterSchema = z.union([
  z.string().refine(isRetryAfter, 'must be delay-seconds (e.g. "1") or an HTTP-date'),
  z.number().int().min(0),
]);
const Result = z.enum(['CONTINUE', 'ABORT']);
const extras = {
  outputParams: z.record(z.string(), z.unknown()).optional(),
  warnings: z.string().optional(),
};

export const BehaviourSchema: z.ZodType<Behaviour> = z.lazy(() =>
  z.discriminatedUnion('mode', [
    z.strictObject({ mode: z.literal('sync'), result: Result, ...extras }),
    z.strictObject({
      mode: z.literal('busy'),
      times: z.number().int().min(0),
      retryAfter: RetryAfterSchema.optional(),
      then: BehaviourSchema,
    }),
    z.strictObject({
      mode: z.literal('async'),
      result: Result,
      polls: z.number().int().min(0).optional(),
      delayMs: z.number().int().min(0).optional(),
      retryAfter: RetryAfterSchema.optional(),
      ...extras,
    }),
    z.strictObject({ mode: z.literal('hang'), retryAfter: RetryAfterSchema.optional() }),
    z.strictObject({
      mode: z.literal('error'),
      status: z.number().int().min(400).max(599),
      detail: z.string().optional(),
      retryAfter: RetryAfterSchema.optional(),
    }),
  ]),
);

/** Issues as `path: message; ...`, the path prefixed (e.g. "inputParams.emBehaviour"). */
export function describeIssues(err: z.ZodError, prefix?: string): string {
  return err.issues
    .map((i) => {
      const p = [...(prefix ? [prefix] : []), ...i.path.map(String)].join('.');
      return `${p || '(body)'}: ${i.message}`;
    })
    .join('; ');
}

/**
 * The behaviour that applies to the POST numbered `attempt` (0-based) of one
 * coordination key: busy layers consume attempts, the rest apply as they are.
 */
export function resolveBehaviour(b: Behaviour, attempt: number): Exclude<Behaviour, BusyBehaviour> | { mode: 'busy'; retryAfter: string } {
  let cur: Behaviour = b;
  let n = attempt;
  while (cur.mode === 'busy') {
    if (n < cur.times) return { mode: 'busy', retryAfter: String(cur.retryAfter ?? DEFAULT_RETRY_AFTER) };
    n -= cur.times;
    cur = cur.then;
  }
  return cur;
}
