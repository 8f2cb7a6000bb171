/**
 * The LCM activities run with a heartbeat timeout (30 s) so that a worker
 * that dies mid-call is noticed within it, not at the start-to-close timeout
 * (disruptive/lcm.test.ts kills one). Most of them never heartbeat (a few
 * HTTP calls), so a call slower than that (Heat under load) was timed out
 * and run again while it was still running. This interceptor heartbeats for
 * any activity silent for a third of its heartbeat timeout, repeating the
 * details the activity itself last sent, so a resumable activity keeps its
 * progress. A dead worker sends nothing and is still noticed in time.
 */
import type { Context } from '@temporalio/activity';
import type { ActivityInterceptors } from '@temporalio/worker';

/** What the SDK's Context sends a heartbeat through (Context.heartbeat calls it). */
interface HeartbeatSink { heartbeatFn?: (details?: unknown) => void }

export function keepAlive(ctx: Context): ActivityInterceptors {
  return {
    inbound: {
      async execute(input, next) {
        const timeoutMs = ctx.info.heartbeatTimeoutMs;
        const sink = ctx as unknown as HeartbeatSink;
        const send = sink.heartbeatFn;
        if (!timeoutMs || ctx.info.isLocal || typeof send !== 'function') return next(input);
        const every = Math.max(1000, Math.floor(timeoutMs / 3));
        let sentAt = Date.now();
        let details: unknown;
        sink.heartbeatFn = (d) => { sentAt = Date.now(); details = d; send.call(ctx, d); };
        const timer = setInterval(() => {
          if (Date.now() - sentAt < every) return;
          sentAt = Date.now();
          send.call(ctx, details);
        }, every);
        try {
          return await next(input);
        } finally {
          clearInterval(timer);
        }
      },
    },
  };
}
