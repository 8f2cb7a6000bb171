/**
 * Notifications: the ETSI LCM subscriptions (SOL003 LccnSubscription, v1 and
 * v2) and the outbox every outbound notification goes through (ETSI LCM
 * notifications and Magnum's CADF webhooks alike, notify/README.md): a row is
 * written with the change it reports, then a delivery workflow per ordering
 * key POSTs the rows of its key in sequence.
 */
import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { StoredSubscriptionFilter, StoredSubscriptionAuth } from '../model/subscriptions';
import { DELIVERY_STATES, inList, NOTIFICATION_KINDS, SUBSCRIPTION_API_VERSIONS } from './enums';

/** A project's LccnSubscription; the authentication's secrets are only in authentication_sealed. */
export const lccnSubscriptions = sqliteTable('lccn_subscriptions', {
  id: text('id').primaryKey(),
  projectId: text('project_id').notNull(),
  /** The API it was created through: its notifications are in that version's shape, with that version's links. */
  apiVersion: text('api_version', { enum: SUBSCRIPTION_API_VERSIONS }).notNull(),
  callbackUri: text('callback_uri').notNull(),
  filter: text('filter', { mode: 'json' }).$type<StoredSubscriptionFilter>(),
  /** v2: FULL (default) or SHORT. */
  verbosity: text('verbosity'),
  /** authType and the parameters that are not secret (what a GET could show; SOL003 never shows authentication). */
  authentication: text('authentication', { mode: 'json' }).$type<StoredSubscriptionAuth>(),
  /** The whole SubscriptionAuthentication, sealed (SecretBox). */
  authenticationSealed: text('authentication_sealed'),
  createdAt: text('created_at').notNull(),
}, (t) => [
  index('lccn_subscriptions_project').on(t.projectId, t.createdAt, t.id),
  check('lccn_subscriptions_api_version', sql.raw(inList('api_version', SUBSCRIPTION_API_VERSIONS))),
]);

/** One notification to one destination: its stable id is the notification's `id`, so a receiver drops a redelivery. */
export const notificationOutbox = sqliteTable('notification_outbox', {
  id: text('id').primaryKey(),
  kind: text('kind', { enum: NOTIFICATION_KINDS }).notNull(),
  /** Whose it is: the subscription's (ETSI) or the cluster's (CADF) project. */
  projectId: text('project_id').notNull(),
  /** etsi-lcm: the LccnSubscription it goes to (rows go with it). */
  subscriptionId: text('subscription_id'),
  /** What it reports on: the VNF instance (etsi-lcm), the CADF event (cadf). */
  sourceId: text('source_id').notNull(),
  /** One delivery workflow per key; rows of a key are delivered one at a time, in seq order. */
  orderingKey: text('ordering_key').notNull(),
  seq: integer('seq').notNull(),
  /** cadf: the sink's index in MAGNUM_NOTIFICATION_WEBHOOKS. */
  sink: integer('sink'),
  /** Where it goes, as it may be shown (no credentials, no query). */
  destination: text('destination').notNull(),
  notificationType: text('notification_type').notNull(),
  /** The body POSTed, exactly; never a secret. */
  payload: text('payload', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  state: text('state', { enum: DELIVERY_STATES }).notNull(),
  attempts: integer('attempts').notNull().default(0),
  lastError: text('last_error'),
  lastAttemptAt: text('last_attempt_at'),
  /** The delivery workflow of its key has been signalled (reconcileNotifications signals the rest). */
  dispatched: integer('dispatched', { mode: 'boolean' }).notNull().default(false),
  createdAt: text('created_at').notNull(),
  finishedAt: text('finished_at'),
}, (t) => [
  uniqueIndex('notification_outbox_key_seq').on(t.orderingKey, t.seq),
  index('notification_outbox_subscription').on(t.subscriptionId, t.state),
  index('notification_outbox_source').on(t.sourceId),
  index('notification_outbox_undispatched').on(t.dispatched),
  // the metrics gauges of the backlog and its oldest row (store/repos/gauges.ts)
  index('notification_outbox_pending').on(t.state, t.createdAt),
  check('notification_outbox_kind', sql.raw(inList('kind', NOTIFICATION_KINDS))),
  check('notification_outbox_state', sql.raw(inList('state', DELIVERY_STATES))),
]);
