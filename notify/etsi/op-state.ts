/**
 * The notifications of an op occ's state change, queued in the transaction
 * that records it (lcm-activities/op-state.ts): once per state entered, tracked
 * by notified_state, so a re-run of the same write (a crash before its
 * result was recorded) queues nothing twice and a step's progress write in
 * the same state queues nothing. The op occ enters STARTING when the API
 * records it; its START notification is queued with the first state the
 * workflow records, before the operation does anything, then that state's
 * RESULT.
 */
import { instanceIn } from '../../store/repos/instances';
import type { OpOccRow } from '../../store/repos/rows';
import type { Q } from '../../store/sql-store';
import type { OpState } from '../../model/lcm-operation';
import type { LcmEvent } from './payloads';
import { queueLcmNotificationsIn } from './queue';

export async function queueStateNotifications(q: Q, apiBaseUrl: string, op: OpOccRow, state: OpState): Promise<Partial<OpOccRow> | void> {
  if (op.notifiedState === state) return;
  const states: OpState[] = [...(!op.notifiedState && state !== 'STARTING' ? ['STARTING' as const] : []), state];
  const instance = await instanceIn(q, op.vnfInstanceId);
  if (instance) {
    const events: LcmEvent[] = states.map((s) => ({ notificationType: 'VnfLcmOperationOccurrenceNotification', vnfInstanceId: op.vnfInstanceId, op, state: s }));
    await queueLcmNotificationsIn(q, apiBaseUrl, instance, events);
  }
  return { notifiedState: state };
}
