/**
 * Queues the ETSI LCM notifications of one change, inside the transaction
 * that records the change: one outbox row per subscription of the instance's
 * project whose filter matches, each with its own stable id (the
 * notification's `id`) and the ordering key of (subscription, instance).
 */
import crypto from 'node:crypto';
import { queueIn, type OutboxRow } from '../../store/repos/notifications';
import type { InstanceRow } from '../../store/repos/rows';
import { subscriptionsOfProjectIn } from '../../store/repos/subscriptions';
import { showUrl } from '../../common/outbound';
import type { Q } from '../../store/sql-store';
import { etsiOrderingKey } from '../contracts';
import { matchesFilter } from './filter';
import { lcmPayload, type LcmEvent } from './payloads';

export async function queueLcmNotificationsIn(q: Q, apiBaseUrl: string, instance: InstanceRow, events: LcmEvent[]): Promise<OutboxRow[]> {
  if (!events.length) return [];
  const subs = await subscriptionsOfProjectIn(q, instance.projectId);
  const at = new Date();
  const rows = events.flatMap((e) => subs.filter((s) => matchesFilter(s.filter, {
    notificationType: e.notificationType, instance,
    ...(e.notificationType === 'VnfLcmOperationOccurrenceNotification' ? { operation: e.op.operation, operationState: e.state } : {}),
  })).map((s) => {
    const id = crypto.randomUUID();
    return {
      id, kind: 'etsi-lcm' as const, projectId: instance.projectId, subscriptionId: s.id, sourceId: instance.id,
      orderingKey: etsiOrderingKey(s.id, instance.id), destination: showUrl(s.callbackUri), notificationType: e.notificationType,
      payload: lcmPayload(id, s, e, apiBaseUrl, at),
    };
  }));
  return queueIn(q, rows);
}
