/**
 * Durable CADF delivery on the notification outbox (notify/): the event is
 * written to the audit log (cadf_events) and one outbox row per configured
 * webhook (ordering key cadf:<sink>, so a sink gets the events in order) in
 * the transaction that writes the status it reports (recordCadfIn); after
 * the commit each sink's delivery workflow is woken (wakeCadf). The event's
 * id is stable (operation and status) and a re-run finds it recorded and
 * only wakes what is still undispatched: a crash at any point loses and
 * duplicates nothing, also when another operation supersedes the one that
 * crashed (its retried status write is fenced off).
 *
 * deliverCadfNotification and its two activities below deliver the events
 * recorded before the outbox (their per-sink state in cadf_events.deliveries),
 * for delivery workflows that were running across the upgrade.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { ActivityDeps } from '../../../../lcm-activities/deps';
import type { Config } from '../../../../common/config';
import { within, type Q } from '../../../../store/sql-store';
import { cadfEventById, insertCadfEventIn, recordCadfDelivery } from '../../../../store/repos/magnum/cadf';
import type { MagnumClusterRow } from '../../../../store/repos/magnum/clusters';
import { queueIn, type OutboxRow } from '../../../../store/repos/notifications';
import { showUrl } from '../../../../common/outbound';
import { redactString } from '../../../../common/secrets';
import { request } from '../../../../infra/openstack/http';
import { cadfOrderingKey } from '../../../../notify/contracts';
import { dispatch, dispatchPending } from '../../../../notify/dispatch';
import { cadfEventId, cadfNotification, outcomeOf } from '../cadf';
import { clusterFacts } from '../cluster-facts';

export const CADF_DELIVERY_WORKFLOW = 'deliverCadfNotification';
export const cadfWorkflowId = (eventId: string) => `cadf-${eventId}`;

/** What is left to do after the commit: wake the sinks of the rows queued, or of what an earlier run queued. */
export interface CadfRecorded { id: string; queued: OutboxRow[]; recordedBeforeOutbox: boolean; summary: string }

/** Inside the status write's transaction, the cluster row as written: the event and its outbox rows, unless a run before this one recorded them. */
export async function recordCadfIn(q: Q, cfg: Config, e: { row: MagnumClusterRow; operationId: string; status: string; action: 'create' | 'update' | 'delete' }): Promise<CadfRecorded | undefined> {
  const outcome = outcomeOf(e.status);
  if (!outcome) return undefined;
  const id = cadfEventId(e.operationId, e.status);
  const summary = `CADF magnum.cluster.${e.action} ${outcome} of cluster ${e.row.name} (${e.row.id})`;
  const recorded = await cadfEventById(within(q), id);
  // recorded before the outbox, its sinks are on the event
  if (recorded) return { id, queued: [], recordedBeforeOutbox: Object.keys(recorded.deliveries).length > 0, summary };
  const notification = cadfNotification({ id, action: e.action, outcome, facts: await clusterFacts(within(q), e.row), host: cfg.magnum.publisherHost, at: new Date() });
  await insertCadfEventIn(q, {
    id, clusterId: e.row.id, projectId: e.row.projectId, eventType: String(notification.event_type), outcome, notification, deliveries: {},
    createdAt: new Date().toISOString(),
  });
  const queued = await queueIn(q, cfg.magnum.notificationWebhooks.map((url, sink) => ({
    // a row per sink; every copy carries the event's message_id, by which receivers drop duplicates
    id: `${id}-${sink}`, kind: 'cadf' as const, projectId: e.row.projectId, sourceId: id, orderingKey: cadfOrderingKey(sink), sink,
    destination: showUrl(url), notificationType: String(notification.event_type), payload: notification,
  })));
  return { id, queued, recordedBeforeOutbox: false, summary };
}

/** After the commit: the sinks' delivery workflows woken (an event from before the outbox: its own workflow, started as that code did). */
export async function wakeCadf(deps: ActivityDeps, r: CadfRecorded): Promise<void> {
  const client = Context.current().client;
  if (r.recordedBeforeOutbox) await startLegacyDelivery(r.id, r.summary);
  else if (r.queued.length) await dispatch(client, deps.cfg.taskQueue, deps.db, r.queued);
  else await dispatchPending(client, deps.cfg.taskQueue, deps.db, [r.id]);
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
