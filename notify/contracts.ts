/** What the API, the activities and the delivery workflow share about notifications (no I/O, no workflow code). */

export const NOTIFY_WORKFLOW = 'deliverNotifications';
export const NOTIFY_SIGNAL = 'notificationQueued';

/** The delivery workflow of an ordering key. */
export const notifyWorkflowId = (orderingKey: string) => `notify-${orderingKey}`;

/** ETSI: one key per subscription and VNF instance, so one instance's notifications reach a subscriber in order. */
export const etsiOrderingKey = (subscriptionId: string, vnfInstanceId: string) => `etsi-lcm:${subscriptionId}:${vnfInstanceId}`;
/** CADF: one key per sink (MAGNUM_NOTIFICATION_WEBHOOKS index): a sink gets the events in the order they happened. */
export const cadfOrderingKey = (sink: number) => `cadf:${sink}`;

export interface DeliverInput { orderingKey: string }

/** The next notification of a key, as the workflow needs it. */
export interface NextNotification {
  id: string;
  /** ms since the epoch after which it is given up (queued + NOTIFICATION_DEADLINE_S). */
  deadlineMs: number;
  maxRetryIntervalS: number;
}

/** What one attempt came to: undefined = delivered; `final` = no attempt can succeed (the row is FAILED at once). */
export type Attempt = undefined | { problem: string; final?: boolean };
