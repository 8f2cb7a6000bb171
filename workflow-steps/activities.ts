/**
 * Activity proxies for LCM workflows. Transient failures (VIM or DB briefly
 * unreachable) are retried a few times; then the step fails and the op goes
 * FAILED_TEMP for the operator. Errors that a retry cannot fix are
 * non-retryable ApplicationFailures raised by the activities themselves.
 */
import { patched, proxyActivities, proxyLocalActivities, type ActivityInterfaceFor, type ActivityOptions, type RetryPolicy } from '@temporalio/workflow';
import type { LcmActivities } from '../lcm-activities';

/** A few retries for transient failures of the systems outside. */
export const OUTSIDE_RETRY: RetryPolicy = {
  initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 5,
  // the outbound policy's refusals and caps (common/outbound.ts) will not change on a retry
  nonRetryableErrorTypes: ['OutboundRefused', 'ResponseTooLarge', 'OutboundConfigError'],
};

const OUTSIDE: ActivityOptions = { startToCloseTimeout: '2m', heartbeatTimeout: '30s', retry: OUTSIDE_RETRY };
/** Reads and writes of our own database: retried until they succeed. */
const DATABASE: ActivityOptions = { startToCloseTimeout: '30s', retry: { initialInterval: '1s', maximumInterval: '10s' } };

export const acts = proxyActivities<LcmActivities>(OUTSIDE);
export const db = proxyActivities<LcmActivities>(DATABASE);

/** The same two proxies for an operation's own activities, typed by its activities module (ops/<api>/<operation>/activities.ts). */
export function activitiesOf<A>(): { acts: ActivityInterfaceFor<A>; db: ActivityInterfaceFor<A> } {
  return { acts: proxyActivities<A>(OUTSIDE), db: proxyActivities<A>(DATABASE) };
}

/**
 * Calls that became local activities under `patch` (run by the worker that runs the workflow, one marker
 * each in the history, no task through the server): the proxy to use now. Operations started before the
 * patch keep their recorded activity tasks (docs/versioning.md). Only for short, idempotent calls.
 */
export function localUnder<T>(patch: string, remote: T, local: T): () => T {
  return () => (patched(patch) ? local : remote);
}

const localOutside = proxyLocalActivities<LcmActivities>({ startToCloseTimeout: '2m', retry: OUTSIDE_RETRY });
const localDatabase = proxyLocalActivities<LcmActivities>({ startToCloseTimeout: '30s', retry: { initialInterval: '1s', maximumInterval: '10s' } });

/** The patch under which the stack status reads of a stack wait (VNF and cluster) are local activities. */
export const STACK_POLLS_LOCAL = 'stack-status-polls-local';

/** The stack status reads of a stack wait: a wait polls Heat up to tens of times. */
export const stackPolls = localUnder(STACK_POLLS_LOCAL, acts, localOutside);

/**
 * The patch under which an operation's reads before its first call that changes anything outside are
 * local activities: the plan's describeOperation and a stack create's first status read. Each was an
 * activity task queued behind every other operation's tasks before the stack's POST reached Heat.
 */
export const PRELUDE_READS_LOCAL = 'prelude-reads-local';
/** The op's own rows read while it plans (describeOperation). */
export const planReads = localUnder(PRELUDE_READS_LOCAL, db, localDatabase);
/** The stack status read by id that decides whether a create is still to be sent. */
export const preludeStackRead = localUnder(PRELUDE_READS_LOCAL, acts, localOutside);

/** Writes of an op's own progress (state, current step, rolling counters); each is idempotent (a worker crash re-runs it). */
export const bookkeeping = localUnder('bookkeeping-as-local-activities', db, localDatabase);
