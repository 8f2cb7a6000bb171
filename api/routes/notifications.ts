/**
 * The API's side of the ETSI notifications: an instance's creation and
 * deletion queue VnfIdentifierCreation/DeletionNotification in the
 * transaction that writes the instance; after the commit their delivery
 * workflows are woken. Should that fail (Temporal unreachable, the API
 * killed), the rows stay queued and undispatched: reconcileNotifications
 * wakes them at the next API start, and the answer is not held back.
 */
import type { Config } from '../../common/config';
import type { OutboxRow } from '../../store/repos/notifications';
import type { InstanceRow } from '../../store/repos/rows';
import type { Q } from '../../store/sql-store';
import { dispatch } from '../../notify/dispatch';
import { queueLcmNotificationsIn } from '../../notify/etsi/queue';
import type { ApiContext } from '../context';

export function queueIdentifierNotification(q: Q, cfg: Config, inst: InstanceRow, type: 'VnfIdentifierCreationNotification' | 'VnfIdentifierDeletionNotification'): Promise<OutboxRow[]> {
  return queueLcmNotificationsIn(q, cfg.apiBaseUrl, inst, [{ notificationType: type, vnfInstanceId: inst.id }]);
}

export async function sendQueued(ctx: ApiContext, rows: OutboxRow[] | undefined): Promise<void> {
  if (!rows?.length) return;
  try {
    await dispatch(ctx.temporal, ctx.cfg.taskQueue, ctx.db, rows);
  } catch (e) {
    ctx.log.warn({ err: { message: (e as Error).message }, notifications: rows.length }, 'notifications queued but their delivery not woken; the next API start does');
  }
}
