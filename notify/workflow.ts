/**
 * The delivery workflow of one ordering key (id notify-<key>): started or
 * woken by signalWithStart from whoever queued a notification of the key
 * (notify/dispatch.ts), it delivers the key's PENDING notifications one at a
 * time in seq order, each POST retried by Temporal with backoff (1 s
 * doubling, at most NOTIFICATION_MAX_RETRY_INTERVAL_S) until the
 * notification's deadline (NOTIFICATION_DEADLINE_S after it was queued; at
 * least one attempt), then marks it FAILED and goes on with the next. Idle,
 * it waits for a signal for a while and ends; it continues as new before its
 * history grows long. The outbox is the queue: signals only wake it.
 */
import { ActivityFailure, condition, continueAsNew, defineSignal, proxyActivities, setHandler, TimeoutFailure, workflowInfo } from '@temporalio/workflow';
import type { NotifyActivities } from './activities';
import { NOTIFY_SIGNAL, type DeliverInput } from './contracts';

const queued = defineSignal(NOTIFY_SIGNAL);
const db = proxyActivities<NotifyActivities>({ startToCloseTimeout: '30s', retry: { initialInterval: '1s', maximumInterval: '10s' } });

/** Waiting for more before the workflow ends (a new notification starts it again). */
const IDLE = '5 minutes';
/** Deliveries per run before it continues as new. */
const PER_RUN = 100;
/** Every notification gets this long for its attempts, even when its deadline passed while it waited its turn. */
const MIN_WINDOW_MS = 30_000;

export async function deliverNotifications(input: DeliverInput): Promise<void> {
  let poked = false;
  setHandler(queued, () => { poked = true; });
  for (let done = 0; ; ) {
    poked = false;
    const next = await db.nextNotification({ orderingKey: input.orderingKey });
    if (!next) {
      if (await condition(() => poked, IDLE)) continue;
      // a last look: a notification queued while the timer ran has its signal in this history or a row in the outbox
      if (poked || (await db.nextNotification({ orderingKey: input.orderingKey }))) continue;
      return;
    }
    const window = Math.max(next.deadlineMs - Date.now(), MIN_WINDOW_MS);
    const post = proxyActivities<NotifyActivities>({
      startToCloseTimeout: '30s',
      scheduleToCloseTimeout: window,
      retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: `${next.maxRetryIntervalS}s`, nonRetryableErrorTypes: ['NotificationRefused'] },
    });
    try {
      await post.deliverNotification({ id: next.id });
    } catch (e) {
      if (!(e instanceof ActivityFailure)) throw e;
      const pastDeadline = e.retryState === 'TIMEOUT' || e.cause instanceof TimeoutFailure;
      await db.giveUpNotification({ id: next.id, pastDeadline, why: e.cause?.message ?? e.message });
    }
    if (++done >= PER_RUN || workflowInfo().continueAsNewSuggested) await continueAsNew<typeof deliverNotifications>(input);
  }
}
