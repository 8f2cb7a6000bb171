/**
 * Durable CADF delivery: the notification is written to the audit log
 * (cadf_events) first, then a delivery workflow of its own (id
 * cadf-<event id>) POSTs it to every configured webhook, retrying with
 * backoff on workflow timers. Both steps are idempotent (a stable event id,
 * a workflow id that can start once), and the activity that records the
 * status only returns once both are done, so a crash at any point loses
 * nothing: Temporal runs the activity again.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { ActivityDeps } from '../../../../activities/deps';
import { cadfEventById, insertCadfEvent, recordCadfDelivery } from '../../../../common/db/repos/magnum/cadf';
import type { MagnumClusterRow } from '../../../../common/db/repos/magnum/clusters';
import { showUrl } from '../../../../common/outbound';
import { redactString } from '../../../../common/secrets';
import { request } from '../../../../infra/openstack/http';
import { cadfEventId, cadfNotification, outcomeOf } from '../cadf';
import { clusterFacts } from '../cluster-facts';

export const CADF_DELIVERY_WORKFLOW = 'deliverCadfNotification';
export const cadfWorkflowId = (eventId: string) => `cadf-${eventId}`;

export async function emitCadf(deps: ActivityDeps, e: { row: MagnumClusterRow; operationId: string; status: string; action: 'create' | 'update' | 'delete' }): Promise<void> {
  const outcome = outcomeOf(e.status);
  if (!outcome) return;
  const id = cadfEventId(e.operationId, e.status);
  const sinks = deps.cfg.magnum.notificationWebhooks;
  if (!(await cadfEventById(deps.db, id))) {
    const notification = cadfNotification({ id, action: e.action, outcome, facts: await clusterFacts(deps.db, e.row), host: deps.cfg.magnum.publisherHost, at: new Date() });
    await insertCadfEvent(deps.db, {
      id, clusterId: e.row.id, projectId: e.row.projectId, eventType: String(notification.event_type), outcome, notification,
      deliveries: Object.fromEntries(sinks.map((url, i) => [String(i), { url: showUrl(url), delivered: false, attempts: 0 }])),
      createdAt: new Date().toISOString(),
    });
  }
  if (!sinks.length) return;
  try {
    await Context.current().client.workflow.start(CADF_DELIVERY_WORKFLOW, {
      workflowId: cadfWorkflowId(id), taskQueue: Context.current().info.taskQueue, args: [{ eventId: id }],
      staticSummary: `CADF magnum.cluster.${e.action} ${outcome} of cluster ${e.row.name} (${e.row.id})`,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

export function cadfActivities(deps: ActivityDeps) {
  const { db, cfg } = deps;
  return {
    /** The sinks the event still has to reach (by index in MAGNUM_NOTIFICATION_WEBHOOKS, as at emission). */
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
