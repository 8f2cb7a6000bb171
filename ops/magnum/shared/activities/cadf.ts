/**
 * Durable CADF delivery on the notification outbox (notify/): the event is
 * written to the audit log (cadf_events) and, in the same transaction, one
 * outbox row per configured webhook (ordering key cadf:<sink>, so a sink
 * gets the events in order); after the commit each sink's delivery workflow
 * is woken. The event's id is stable (operation and status), the activity
 * that records the status returns only once both steps are done, and a
 * re-run finds the event recorded and only wakes what is still
 * undispatched: a crash at any point loses and duplicates nothing.
 *
 * deliverCadfNotification and its two activities below deliver the events
 * recorded before the outbox (their per-sink state in cadf_events.deliveries),
 * for delivery workflows that were running across the upgrade.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { ActivityDeps } from '../../../../activities/deps';
import { cadfEventById, insertCadfEvent, recordCadfDelivery } from '../../../../common/db/repos/magnum/cadf';
import type { MagnumClusterRow } from '../../../../common/db/repos/magnum/clusters';
import { queueIn } from '../../../../common/db/repos/notifications';
import { showUrl } from '../../../../common/outbound';
import { redactString } from '../../../../common/secrets';
import { request } from '../../../../infra/openstack/http';
import { cadfOrderingKey } from '../../../../notify/contracts';
import { dispatch, dispatchPending } from '../../../../notify/dispatch';
import { cadfEventId, cadfNotification, outcomeOf } from '../cadf';
import { clusterFacts } from '../cluster-facts';

export const CADF_DELIVERY_WORKFLOW = 'deliverCadfNotification';
export const cadfWorkflowId = (eventId: string) => `cadf-${eventId}`;

export async function emitCadf(deps: ActivityDeps, e: { row: MagnumClusterRow; operationId: string; status: string; action: 'create' | 'update' | 'delete' }): Promise<void> {
  const outcome = outcomeOf(e.status);
  if (!outcome) return;
  const id = cadfEventId(e.operationId, e.status);
  const sinks = deps.cfg.magnum.notificationWebhooks;
  const client = Context.current().client;
  const recorded = await cadfEventById(deps.db, id);
  if (recorded) {
    // recorded before the outbox (its sinks on the event): its own workflow delivers it, started as that code did
    if (Object.keys(recorded.deliveries).length) await startLegacyDelivery(id, `CADF magnum.cluster.${e.action} ${outcome} of cluster ${e.row.name} (${e.row.id})`);
    else await dispatchPending(client, deps.cfg.taskQueue, deps.db, [id]);
    return;
  }
  const notification = cadfNotification({ id, action: e.action, outcome, facts: await clusterFacts(deps.db, e.row), host: deps.cfg.magnum.publisherHost, at: new Date() });
  let queued: Awaited<ReturnType<typeof queueIn>> = [];
  await insertCadfEvent(deps.db, {
    id, clusterId: e.row.id, projectId: e.row.projectId, eventType: String(notification.event_type), outcome, notification, deliveries: {},
    createdAt: new Date().toISOString(),
  }, async (q) => {
    queued = await queueIn(q, sinks.map((url, sink) => ({
      // a row per sink; every copy carries the event's message_id, by which receivers drop duplicates
      id: `${id}-${sink}`, kind: 'cadf' as const, projectId: e.row.projectId, sourceId: id, orderingKey: cadfOrderingKey(sink), sink,
      destination: showUrl(url), notificationType: String(notification.event_type), payload: notification,
    })));
  });
  await dispatch(client, deps.cfg.taskQueue, deps.db, queued);
}

async function startLegacyDelivery(eventId: string, summary: string): Promise<void> {
  try {
    await Context.current().client.workflow.start(CADF_DELIVERY_WORKFLOW, {
      workflowId: cadfWorkflowId(eventId), taskQueue: Context.current().info.taskQueue, args: [{ eventId }], staticSummary: summary,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

export function cadfActivities(deps: ActivityDeps) {
  const { db, cfg } = deps;
  return {
    /** Events from before the outbox: the sinks the event still has to reach (by index in MAGNUM_NOTIFICATION_WEBHOOKS, as at emission). */
    async cadfSinks({ eventId }: { eventId: string }): Promise<string[]> {
      const e = await cadfEventById(db, eventId);
      return e ? Object.entries(e.deliveries).filter(([, d]) => !d.delivered).map(([k]) => k) : [];
    },

    /** One POST of the notification to one webhook; a failure is recorded and retried by Temporal. */
    async postCadfNotification({ eventId, sink }: { eventId: string; sink: string }): Promise<void> {
      const e = await cadfEventById(db, eventId);
      const url = cfg.magnum.notificationWebhooks[Number(sink)];
      if (!e || e.deliveries[sink]?.delivered) return;
      if (!url) {
        await recordCadfDelivery(db, eventId, sink, { url: e.deliveries[sink]?.url ?? '', delivered: false, lastError: 'the webhook is no longer configured' });
        throw ApplicationFailure.nonRetryable(`CADF sink ${sink} is no longer configured`, 'SinkGone');
      }
      let problem: string | undefined;
      try {
        const r = await request('POST', url, {
          headers: { 'content-type': 'application/json' }, body: e.notification, timeoutMs: 15_000, purpose: 'CADF webhook', maxBytes: 64 * 1024,
        });
        if (r.status < 200 || r.status >= 300) problem = `${showUrl(url)} answered ${r.status}`;
      } catch (err) {
        problem = redactString((err as Error).message).slice(0, 300);
      }
      await recordCadfDelivery(db, eventId, sink, { url: showUrl(url), delivered: !problem, lastError: problem });
      if (problem) throw ApplicationFailure.retryable(`CADF delivery to sink ${sink}: ${problem}`, 'SinkUnavailable');
    },
  };
}
