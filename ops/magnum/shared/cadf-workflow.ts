/**
 * One CADF notification's delivery (workflow id cadf-<event id>): POSTed to
 * every configured webhook in parallel, each retried with exponential
 * backoff (2 s doubling to 10 min) for up to three days; each attempt's
 * outcome is kept in the audit log. Started by the activity that records
 * the event, so no event is left undelivered by a crash.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { MagnumActivities } from './activities';

const quick = proxyActivities<MagnumActivities>({ startToCloseTimeout: '30s', retry: { initialInterval: '1s', maximumInterval: '10s' } });
const post = proxyActivities<MagnumActivities>({
  startToCloseTimeout: '30s',
  scheduleToCloseTimeout: '3 days',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '10m', nonRetryableErrorTypes: ['SinkGone', 'OutboundRefused'] },
});

export async function deliverCadfNotification({ eventId }: { eventId: string }): Promise<void> {
  const sinks = await quick.cadfSinks({ eventId });
  const results = await Promise.allSettled(sinks.map((sink) => post.postCadfNotification({ eventId, sink })));
  const failed = results.filter((r) => r.status === 'rejected').length;
  if (failed) throw new Error(`${failed} of ${sinks.length} CADF sink(s) did not take event ${eventId}; see the audit log`);
}
