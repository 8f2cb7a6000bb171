/**
 * Waking delivery workflows: after the transaction that queued notifications
 * commits, each of their ordering keys' workflow is signalled (started when
 * it is not running: signalWithStart), then the rows are marked dispatched.
 * A crash between the commit and the signal leaves rows undispatched: the
 * next write of the same source dispatches them (an activity re-run), and
 * reconcileNotifications does at API start, with every key that still has
 * PENDING rows.
 */
import type { Client } from '@temporalio/client';
import { keysWithPending, markDispatched, undispatched } from '../store/repos/notifications';
import type { Store } from '../store/store';
import { NOTIFY_SIGNAL, NOTIFY_WORKFLOW, notifyWorkflowId, type DeliverInput } from './contracts';

export async function wake(client: Client, taskQueue: string, orderingKey: string): Promise<void> {
  const input: DeliverInput = { orderingKey };
  await client.workflow.signalWithStart(NOTIFY_WORKFLOW, {
    workflowId: notifyWorkflowId(orderingKey), taskQueue, args: [input], signal: NOTIFY_SIGNAL, signalArgs: [],
    staticSummary: `Notifications of ${orderingKey}`,
  });
}

/** Signals the keys of these rows, then marks them dispatched. */
export async function dispatch(client: Client, taskQueue: string, store: Store, rows: { id: string; orderingKey: string }[]): Promise<void> {
  for (const key of new Set(rows.map((r) => r.orderingKey))) await wake(client, taskQueue, key);
  await markDispatched(store, rows.map((r) => r.id));
}

/** The undispatched rows of these sources (or of all), dispatched. */
export async function dispatchPending(client: Client, taskQueue: string, store: Store, sourceIds?: string[]): Promise<void> {
  const rows = await undispatched(store, { sourceIds });
  if (rows.length) await dispatch(client, taskQueue, store, rows);
}

/** At start: every undispatched row, and every key with something left to deliver (its workflow may have ended on a crash). */
export async function reconcileNotifications(client: Client, taskQueue: string, store: Store): Promise<number> {
  await dispatchPending(client, taskQueue, store);
  const keys = await keysWithPending(store);
  for (const key of keys) await wake(client, taskQueue, key);
  return keys.length;
}
