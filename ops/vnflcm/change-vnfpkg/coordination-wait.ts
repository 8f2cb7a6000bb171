/**
 * Ops started before COORD_PARK_PATCH (roll-vnfc.ts): the whole wait for one
 * VNFC's coordination as one heartbeating activity on the worker's waits
 * queue: POST, then GET the Location after each Retry-After until the EM
 * decides. The Location is kept in the heartbeat: after a worker crash the
 * retry resumes the same coordination instead of POSTing a second one.
 * Newer ops park the wait in the store instead (coordination-parking.ts).
 * CoordExchanges, the EM calls both use, is defined here.
 */
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import type { GetOutcome, PostOutcome } from '../../../coord/client';
import type { LcmCoord } from '../../../model/coordination';

/** How often a parked wait heartbeats: it bounds how long an operator cancel takes to reach it. */
export const WAIT_HEARTBEAT_MS = 10_000;

export interface CoordExchanges<A> {
  post(a: A): Promise<PostOutcome>;
  get(a: A & { location: string }): Promise<GetOutcome>;
  cancel(a: A & { location: string }): Promise<void>;
}

interface Progress { location?: string }

/** The EM's decision, or CoordinationTimeout at `deadline` (epoch ms); a pending coordination left behind is cancelled on the EM. */
export async function awaitDecision<A extends { vnfcId: string }>(x: CoordExchanges<A>, a: A, deadline: number, timeoutMs: number): Promise<LcmCoord> {
  const ctx = Context.current();
  let { location } = (ctx.info.heartbeatDetails as Progress | undefined) ?? {};
  const heartbeat = () => ctx.heartbeat({ location } satisfies Progress);
  try {
    for (;;) {
      const o = location ? await x.get({ ...a, location }) : await x.post(a);
      if (o.kind === 'result') return o.coord;
      if (o.kind === 'async') location = o.location;
      heartbeat();
      const until = Math.min(Date.now() + o.retryAfterMs, deadline);
      for (let left = until - Date.now(); left > 0; left = until - Date.now()) {
        await ctx.sleep(Math.min(WAIT_HEARTBEAT_MS, left)); // rejects with CancelledFailure on an operator cancel
        heartbeat();
      }
      if (Date.now() >= deadline) break;
    }
  } catch (e) {
    // Only the end of the wait cancels the coordination: an operator cancel or an error no retry mends. A worker
    // shutting down (a restart, an upgrade) or a retryable error (the EM briefly unreachable) keeps it, for the
    // retry to resume.
    const cancelled = e instanceof CancelledFailure && ctx.cancellationDetails?.cancelRequested === true;
    const final = cancelled || (e instanceof ApplicationFailure && e.nonRetryable);
    if (final && location) await x.cancel({ ...a, location }).catch(() => undefined);
    throw e;
  }
  if (location) await x.cancel({ ...a, location });
  throw ApplicationFailure.nonRetryable(`coordination of VNFC ${a.vnfcId} did not finish within ${timeoutMs / 1000} s`, 'CoordinationTimeout');
}
