/**
 * A coordination parked on its EM costs a database row, not a running
 * activity. The wait's activity (parkForDecision) parks the wait (task token,
 * next poll) in the store and POSTs; on a decision it drops the wait and
 * returns it; on 202 or 503 it keeps the wait (with the Location) and
 * completes asynchronously. The worker's poller
 * (startCoordinationPoller) takes the due waits of every op, GETs the Location
 * (or POSTs again after a 503) at each Retry-After, and completes or fails the
 * waiting activity through Temporal's client. Before each poll it heartbeats
 * the activity: one cancelled or gone (an operator cancel, a terminated
 * workflow) has its coordination cancelled on the EM and its wait dropped.
 * Any worker's poller may take a wait: a worker that dies leaves its waits
 * to the others.
 * docs/benchmarks.md, "Worker memory with parked ops".
 */
import { ApplicationFailure, CompleteAsyncError, Context } from '@temporalio/activity';
import { ActivityCancelledError, ActivityNotFoundError } from '@temporalio/client';
import { claimDueWaits, parkWait, rearmWait, removeWait, rescheduleWait, waitById, type CoordinationWait } from '../../../store/repos/coordination-waits';
import type { Store } from '../../../store/store';
import type { Logger } from '../../../common/log';
import { redact } from '../../../common/secrets';
import type { LcmCoord } from '../../../model/coordination';
import { DEFAULT_TIMEOUT_MS } from '../../../coord/client-auth';
import { coordSide, type CoordArgs, type Exchanging } from './coordination-exchanges';
import type { CoordExchanges } from './coordination-wait';

/** One wait per VNFC coordination of an op: an update's, or its rollback's. */
export const waitKey = (a: CoordArgs): string => `${a.opOccId}/${a.vnfcId}/${a.isRollback ? 'rollback' : 'update'}/${coordSide(a)}`;

const args = (a: CoordArgs): CoordArgs => ({ opOccId: a.opOccId, vnfcId: a.vnfcId, isRollback: a.isRollback, ...(a.side ? { side: a.side } : {}) });

/** The activity: the EM's decision at once, or the wait parked in the store for the poller to complete. */
export async function parkForDecision(db: Store, x: CoordExchanges<CoordArgs>, a: CoordArgs & { deadline: number; timeoutMs: number }): Promise<LcmCoord> {
  const { deadline, timeoutMs } = a;
  const id = waitKey(a);
  const taskToken = Buffer.from(Context.current().info.taskToken).toString('base64');
  // a retry after a failed poll or a lost attempt resumes the coordination it has, without a second POST
  if (await rearmWait(db, id, taskToken, Date.now())) throw new CompleteAsyncError();
  // Parked before the POST, claimed for as long as the POST can take: a worker that dies once the EM has it leaves
  // the wait to any poller (it POSTs again, as after a 503), not to the attempt's start-to-close timeout.
  const wait = { id, opOccId: a.opOccId, args: JSON.stringify(args(a)), taskToken, deadline, timeoutMs };
  await parkWait(db, { ...wait, location: null, nextPollAt: Math.min(Date.now() + POSTING_CLAIM_MS, deadline) });
  let o: Awaited<ReturnType<typeof x.post>>;
  try {
    o = await x.post(args(a));
  } catch (e) {
    await removeWait(db, id, taskToken); // the activity's retry policy decides, as for any failed call
    throw e;
  }
  if (o.kind === 'result') {
    await removeWait(db, id, taskToken);
    return o.coord;
  }
  const location = o.kind === 'async' ? o.location : null;
  await parkWait(db, { ...wait, location, nextPollAt: Math.min(Date.now() + o.retryAfterMs, deadline) });
  throw new CompleteAsyncError();
}

/**
 * The activity run when the op gives up the wait (an operator cancel): the pending coordination is cancelled on the EM.
 * A cancel that lands while the wait's POST is still in flight finds no wait yet; the poller finds the wait parked
 * after it cancelled at its first poll (the heartbeat says so) and cancels it on the EM then.
 */
export async function dropParkedWait(db: Store, x: CoordExchanges<CoordArgs>, a: CoordArgs): Promise<void> {
  const w = await waitById(db, waitKey(a));
  if (!w) return;
  if (w.location) await x.cancel({ ...args(a), location: w.location }).catch(() => undefined);
  await removeWait(db, w.id);
}

/** How a waiting activity is completed, and asked whether it is still wanted: Temporal's AsyncCompletionClient (client.activity). */
export interface Completions {
  complete(taskToken: Uint8Array, result: unknown): Promise<void>;
  fail(taskToken: Uint8Array, err: unknown): Promise<void>;
  /** Throws ActivityCancelledError when a cancel was asked for, ActivityNotFoundError when the activity is gone. */
  heartbeat(taskToken: Uint8Array): Promise<void>;
  reportCancellation(taskToken: Uint8Array): Promise<void>;
}

export interface PollerOptions {
  db: Store;
  exchanging: (a: CoordArgs) => Promise<Exchanging>;
  exchangesWith: (load: (a: CoordArgs) => Promise<Exchanging>) => CoordExchanges<CoordArgs>;
  completions: Completions;
  log: Logger;
  tickMs?: number;
}

/** A poll that finds the store or Temporal unreachable is tried again this much later. */
const AGAIN_MS = 5_000;
/** A wait a poller took is left alone this long: if that poller dies mid-poll, another takes it after. */
const CLAIM_MS = 60_000;
/** A wait whose first POST is in flight is left alone longer than that POST can take (two token requests and two sends). */
const POSTING_CLAIM_MS = 4 * DEFAULT_TIMEOUT_MS + 30_000;
const AT_ONCE = 50;
/** Kept as the activity's retry policy keeps them (workflow-steps/activities.ts OUTSIDE_RETRY): a retry would not change them. */
const FINAL_ERRORS = ['OutboundRefused', 'ResponseTooLarge', 'OutboundConfigError'];
const isFinal = (e: unknown) => (e instanceof ApplicationFailure && e.nonRetryable) || FINAL_ERRORS.includes((e as Error)?.name);
/** The op occ, the instance and the decrypted vnfc_param of this many waits are kept between their polls. */
const LOADED_KEPT = 2_000;

export function startCoordinationPoller(o: PollerOptions): { stop(): Promise<void>; pollDue(): Promise<number>; settled(): Promise<void> } {
  const { db, completions, log } = o;
  const loaded = new Map<string, Promise<Exchanging>>();
  const x = o.exchangesWith((a) => {
    const key = waitKey(a);
    let p = loaded.get(key);
    if (!p) {
      p = o.exchanging(a);
      p.catch(() => loaded.delete(key));
      loaded.set(key, p);
      if (loaded.size > LOADED_KEPT) loaded.delete(loaded.keys().next().value!);
    }
    return p;
  });

  /** The waiting activity attempt's task token. */
  const tokenOf = (w: CoordinationWait) => Buffer.from(w.taskToken, 'base64');
  /** Cancels the wait's coordination on the EM, if it has one there; best effort (the EM times it out otherwise). */
  const cancelOnEm = (w: CoordinationWait, a: CoordArgs) => (w.location ? x.cancel({ ...a, location: w.location }).catch(() => undefined) : undefined);

  /** Completes or fails the waiting activity, then forgets the wait (kept if a retry's attempt took it over meanwhile). */
  const settle = async (w: CoordinationWait, how: (token: Uint8Array) => Promise<void>) => {
    try {
      await how(tokenOf(w));
    } catch (e) {
      // gone: its op closed, or its attempt timed out and a retry took the wait over
      if (!(e instanceof ActivityNotFoundError)) {
        log.warn({ wait: w.id, err: (e as Error).message }, 'coordination wait: Temporal did not take the outcome, trying again');
        await rescheduleWait(db, w, { location: w.location, nextPollAt: Date.now() + AGAIN_MS });
        return;
      }
    }
    loaded.delete(w.id);
    await removeWait(db, w.id, w.taskToken);
  };

  /** 'cancelled' or 'gone' when the waiting activity no longer wants its decision; Temporal unreachable counts as wanted. */
  const unwanted = async (w: CoordinationWait): Promise<'cancelled' | 'gone' | undefined> => {
    try {
      await completions.heartbeat(tokenOf(w));
    } catch (e) {
      if (e instanceof ActivityCancelledError) return 'cancelled';
      if (e instanceof ActivityNotFoundError) return 'gone';
    }
    return undefined;
  };

  const pollOne = async (w: CoordinationWait) => {
    const a = JSON.parse(w.args) as CoordArgs;
    const why = await unwanted(w);
    if (why) {
      await cancelOnEm(w, a);
      if (why === 'cancelled') await completions.reportCancellation(tokenOf(w)).catch(() => undefined);
      loaded.delete(w.id);
      return removeWait(db, w.id, w.taskToken);
    }
    if (Date.now() >= w.deadline) {
      await cancelOnEm(w, a);
      return settle(w, (t) => completions.fail(t, ApplicationFailure.nonRetryable(`coordination of VNFC ${a.vnfcId} did not finish within ${w.timeoutMs / 1000} s`, 'CoordinationTimeout')));
    }
    let r: Awaited<ReturnType<typeof x.get>> | Awaited<ReturnType<typeof x.post>>;
    try {
      r = w.location ? await x.get({ ...a, location: w.location }) : await x.post(a);
    } catch (e) {
      if (isFinal(e)) {
        await cancelOnEm(w, a);
        return settle(w, (t) => completions.fail(t, e));
      }
      // This attempt fails and the retry policy decides; a retry's attempt takes the wait over (rearmWait).
      // Until then (or, after the last attempt, until its deadline cancels it on the EM) it is not polled.
      await rescheduleWait(db, w, { location: w.location, nextPollAt: w.deadline });
      try {
        await completions.fail(tokenOf(w), e);
      } catch (err) {
        if (!(err instanceof ActivityNotFoundError)) await rescheduleWait(db, w, { location: w.location, nextPollAt: Date.now() + AGAIN_MS });
      }
      return;
    }
    if (r.kind === 'result') return settle(w, (t) => completions.complete(t, redact(r.coord)));
    const location = r.kind === 'async' ? r.location : w.location;
    const kept = await rescheduleWait(db, w, { location, nextPollAt: Math.min(Date.now() + r.retryAfterMs, w.deadline) });
    // dropped meanwhile (an operator cancel): a coordination this poll has just created is not left on the EM
    if (!kept && location && location !== w.location) await x.cancel({ ...a, location }).catch(() => undefined);
  };

  // Each wait is polled on its own, up to AT_ONCE at a time: an EM slow to answer holds one slot, not the others' turns.
  const inflight = new Set<Promise<void>>();
  /** Starts the polls of the waits due now, as many as there are free slots; how many. */
  const pollDue = async (): Promise<number> => {
    let n = 0;
    while (inflight.size < AT_ONCE) {
      const now = Date.now();
      const due = await claimDueWaits(db, now, now + CLAIM_MS, AT_ONCE - inflight.size);
      for (const w of due) {
        const p = pollOne(w).catch((e: Error) => {
          log.warn({ wait: w.id, err: e.message }, 'coordination wait: poll failed, trying again');
          return rescheduleWait(db, w, { location: w.location, nextPollAt: Date.now() + AGAIN_MS }).then(() => undefined, () => undefined);
        }).finally(() => inflight.delete(p));
        inflight.add(p);
      }
      n += due.length;
      if (!due.length) break;
    }
    return n;
  };
  /** The polls started so far, finished. */
  const settled = async () => { while (inflight.size) await Promise.all([...inflight]); };

  let stopped = false;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    for (;;) {
      await new Promise<void>((r) => { wake = r; setTimeout(r, o.tickMs ?? 1000).unref(); });
      if (stopped) return;
      await pollDue().catch((e: Error) => log.warn({ err: e.message }, 'coordination waits: the store did not answer'));
    }
  })();
  return {
    pollDue,
    settled,
    async stop() {
      stopped = true;
      wake?.();
      await loop;
      await settled();
    },
  };
}
