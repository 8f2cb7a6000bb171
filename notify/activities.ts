/**
 * The delivery workflow's activities: the next notification of a key, one
 * delivery attempt (recorded on the row whatever its outcome, so the owner
 * sees attempts and the last error while it is retried), and giving up. The
 * POST itself is the kind's (ETSI: the subscription's callback with its
 * authentication; CADF: the configured webhook). Every attempt goes through
 * the outbound policy.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from '../lcm-activities/deps';
import { markFailed, nextPendingOf, notificationById, recordAttempt, type OutboxRow } from '../store/repos/notifications';
import type { Attempt, NextNotification } from './contracts';
import { postCadf } from './cadf';
import { postEtsi } from './etsi/send';

export function notifyActivities(deps: ActivityDeps) {
  const { db, cfg } = deps;
  const send = (row: OutboxRow): Promise<Attempt> => (row.kind === 'cadf' ? postCadf(deps, row) : postEtsi(deps, row));
  return {
    async nextNotification({ orderingKey }: { orderingKey: string }): Promise<NextNotification | undefined> {
      const row = await nextPendingOf(db, orderingKey);
      if (!row) return undefined;
      return { id: row.id, deadlineMs: Date.parse(row.createdAt) + cfg.notifications.deadlineS * 1000, maxRetryIntervalS: cfg.notifications.maxRetryIntervalS };
    },

    /** One attempt; a failure is recorded, then thrown for Temporal to retry with backoff. */
    async deliverNotification({ id }: { id: string }): Promise<void> {
      const row = await notificationById(db, id);
      if (!row || row.state !== 'PENDING') return; // delivered meanwhile, or its subscription deleted
      const outcome = await send(row);
      await recordAttempt(db, id, outcome?.problem);
      if (!outcome) return;
      if (outcome.final) throw ApplicationFailure.nonRetryable(outcome.problem, 'NotificationRefused');
      throw ApplicationFailure.retryable(outcome.problem, 'NotificationNotDelivered');
    },

    /** Given up: past its deadline (the attempts' last error kept in the reason), or refused for good. */
    async giveUpNotification({ id, pastDeadline, why }: { id: string; pastDeadline: boolean; why: string }): Promise<void> {
      const row = await notificationById(db, id);
      if (!row || row.state !== 'PENDING') return;
      const last = row.lastError ?? why;
      const reason = pastDeadline ? `not delivered within NOTIFICATION_DEADLINE_S (${cfg.notifications.deadlineS} s) after ${row.attempts} attempt(s); last: ${last}` : last;
      await markFailed(db, id, reason.slice(0, 1000));
    },
  };
}

export type NotifyActivities = ReturnType<typeof notifyActivities>;
