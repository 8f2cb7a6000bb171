/**
 * GENERATED from schema-magnum.ts by scripts/generate-pg-schema.ts: do not edit.
 * Edit schema-magnum.ts and run `npm run db:schema:pg`. The PostgreSQL twin of
 * schema-magnum.ts (DATABASE_URL=postgres://...): the same tables and columns under the
 * same names, with PostgreSQL's types (jsonb, boolean, bytea, bigint, serial).
 * Row types are checked equal in store-pg.ts. Migrations: drizzle-pg/.
 */
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import type { ClusterTemplateAttrs } from '../model/magnum/template';
import type { Labels, NodeTaint } from '../model/magnum/fields';
import { CLUSTER_STATUSES } from '../model/magnum/status';
import type { MagnumClusterAttrs, CadfDeliveries } from '../model/magnum/stored';
import { inList } from './enums';

export const magnumTemplates = pgTable('magnum_cluster_templates', {
  id: text('id').primaryKey(),
  projectId: text('project_id').notNull(),
  userId: text('user_id').notNull(),
  name: text('name').notNull(),
  public: boolean('public').notNull().default(false),
  hidden: boolean('hidden').notNull().default(false),
  /** Every other field, under Magnum's names, defaults applied. */
  attrs: jsonb('attrs').$type<ClusterTemplateAttrs>().notNull(),
  /** {http_proxy, https_proxy}: they may carry credentials. */
  proxiesSealed: text('proxies_sealed'),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at'),
}, (t) => [index('magnum_templates_project').on(t.projectId)]);

export const magnumClusters = pgTable('magnum_clusters', {
  id: text('id').primaryKey(),
  projectId: text('project_id').notNull(),
  userId: text('user_id').notNull(),
  name: text('name').notNull(),
  templateId: text('template_id').notNull().references(() => magnumTemplates.id),
  status: text('status', { enum: CLUSTER_STATUSES }).notNull(),
  statusReason: text('status_reason'),
  attrs: jsonb('attrs').$type<MagnumClusterAttrs>().notNull(),
  stackId: text('stack_id'),
  /**
   * The operation running or last run: its kind (a name in ops/registry.ts; no CHECK here, so that a new
   * operation is a folder and a registry line, not a migration), its workflow (the only one whose status
   * writes count), the nodegroups it changes.
   */
  operation: text('operation').notNull(),
  operationId: text('operation_id').notNull(),
  opNodegroups: jsonb('op_nodegroups').$type<number[]>().notNull(),
  /** The operation's own input beyond ids (a resize's count and servers to remove), for its workflow to read. */
  opParams: jsonb('op_params').$type<Record<string, unknown>>().notNull(),
  /** Whether the API started the operation's workflow (a crash in between is picked up at start). */
  workflowStarted: boolean('workflow_started').notNull().default(false),
  /** The OpenTelemetry trace of the request that started the operation (null when tracing is off or the system started it untraced). */
  traceId: text('trace_id'),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at'),
}, (t) => [
  index('magnum_clusters_project').on(t.projectId),
  index('magnum_clusters_template').on(t.templateId),
  // the metrics gauge of operations in progress (store/repos/gauges.ts)
  index('magnum_clusters_status').on(t.status),
  check('magnum_clusters_status', sql.raw(inList('status', CLUSTER_STATUSES))),
]);

export const magnumNodegroups = pgTable('magnum_nodegroups', {
  id: serial('id').primaryKey(),
  uuid: text('uuid').notNull(),
  clusterId: text('cluster_id').notNull().references(() => magnumClusters.id, { onDelete: 'cascade' }),
  projectId: text('project_id').notNull(),
  name: text('name').notNull(),
  role: text('role').notNull(),
  isDefault: boolean('is_default').notNull().default(false),
  flavorId: text('flavor_id'),
  imageId: text('image_id').notNull(),
  dockerVolumeSize: integer('docker_volume_size'),
  nodeCount: integer('node_count').notNull(),
  minNodeCount: integer('min_node_count').notNull().default(0),
  maxNodeCount: integer('max_node_count'),
  labels: jsonb('labels').$type<Labels>().notNull(),
  nodeLabels: jsonb('node_labels').$type<Record<string, string>>().notNull(),
  nodeTaints: jsonb('node_taints').$type<NodeTaint[]>().notNull(),
  status: text('status', { enum: CLUSTER_STATUSES }).notNull(),
  statusReason: text('status_reason'),
  version: text('version'),
  /** Indexes of its servers in the cluster's stack (resources "<name>-<index>"). */
  members: jsonb('members').$type<number[]>().notNull(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at'),
}, (t) => [
  uniqueIndex('magnum_nodegroups_uuid').on(t.uuid),
  uniqueIndex('magnum_nodegroups_name').on(t.clusterId, t.name),
  check('magnum_nodegroups_status', sql.raw(inList('status', CLUSTER_STATUSES))),
]);

export const magnumQuotas = pgTable('magnum_quotas', {
  id: serial('id').primaryKey(),
  projectId: text('project_id').notNull(),
  resource: text('resource').notNull(),
  hardLimit: integer('hard_limit').notNull(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at'),
}, (t) => [uniqueIndex('magnum_quotas_project_resource').on(t.projectId, t.resource)]);

/** Every CADF notification, kept after its cluster is gone (the audit log), and how far its delivery got per sink. */
export const cadfEvents = pgTable('cadf_events', {
  id: text('id').primaryKey(),
  clusterId: text('cluster_id').notNull(),
  projectId: text('project_id').notNull(),
  eventType: text('event_type').notNull(),
  outcome: text('outcome').notNull(),
  /** The oslo notification: {event_type, message_id, priority, publisher_id, timestamp, payload (the CADF event)}. */
  notification: jsonb('notification').$type<Record<string, unknown>>().notNull(),
  deliveries: jsonb('deliveries').$type<CadfDeliveries>().notNull(),
  createdAt: text('created_at').notNull(),
}, (t) => [index('cadf_events_cluster').on(t.clusterId), index('cadf_events_created').on(t.createdAt)]);
