/**
 * GENERATED from schema.ts by scripts/generate-pg-schema.ts: do not edit.
 * Edit schema.ts and run `npm run db:schema:pg`. The PostgreSQL twin of
 * schema.ts (DATABASE_URL=postgres://...): the same tables and columns under the
 * same names, with PostgreSQL's types (jsonb, boolean, bytea, bigint, serial).
 * Row types are checked equal in store-pg.ts. Migrations: drizzle-pg/.
 */
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, customType, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';

import type { ExtVirtualLinkInfo, InstantiatedVnfInfo } from '../model/instantiated-vnf-info';
import type { Vnfd } from '../model/vnfd';
import { CANCEL_MODES, INSTANTIATION_STATES, inList, ONBOARDING_STATES, OPERATIONAL_STATES, OP_STATES, USAGE_STATES } from './enums';
import { LCM_OPERATIONS } from '../model/lcm-operation';
import type { ClusterPkiCerts } from '../model/cluster';
import { CLUSTER_KINDS, HEALTH_STATUSES, JOIN_STATES, NODE_ROLES, type ClusterSettings } from '../model/cluster';

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

type Json = Record<string, unknown>;

/**
 * Every resource has an owning Keystone project (`project_id`); the
 * repositories in store/repos filter every query by it. Rows from
 * before ownership existed have '' and are seen by admins only.
 */
export const vims = pgTable('vims', {
  id: text('id').primaryKey(),
  /** Owning project; the configured default VIM is the admin project's, shared read-only with every project. */
  projectId: text('project_id').notNull().default(''),
  shared: boolean('shared').notNull().default(false),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  type: text('type').notNull().default('openstack'),
  authUrl: text('auth_url').notNull(),
  username: text('username').notNull(),
  passwordSealed: text('password_sealed').notNull(),
  project: text('project').notNull(),
  projectDomain: text('project_domain').notNull().default('Default'),
  userDomain: text('user_domain').notNull().default('Default'),
  region: text('region').notNull().default('RegionOne'),
  caCert: text('ca_cert'),
  isDefault: boolean('is_default').notNull().default(false),
  /** Tacker's VIM status: REACHABLE when its Keystone accepted the credentials at registration. */
  status: text('status').notNull().default('REACHABLE'),
  /**
   * Set on a project's access to a shared VIM (infra/vim-access): the shared VIM's id. Such a row acts
   * with that VIM's login through `trustId`, a Keystone trust from a member of `projectId`: in that project,
   * with the member role only. It is never listed, chosen or changed as a VIM of its own.
   */
  accessOf: text('access_of'),
  trustId: text('trust_id'),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at'),
}, (t) => [index('vims_project').on(t.projectId), uniqueIndex('vims_access').on(t.accessOf, t.projectId)]);

export const vnfPackages = pgTable('vnf_packages', {
  id: text('id').primaryKey(),
  projectId: text('project_id').notNull().default(''),
  onboardingState: text('onboarding_state', { enum: ONBOARDING_STATES }).notNull(),
  operationalState: text('operational_state', { enum: OPERATIONAL_STATES }).notNull(),
  usageState: text('usage_state', { enum: USAGE_STATES }).notNull(),
  userDefinedData: jsonb('user_defined_data').$type<Json>().notNull(),
  vnfdId: text('vnfd_id'),
  vnfProvider: text('vnf_provider'),
  vnfProductName: text('vnf_product_name'),
  vnfSoftwareVersion: text('vnf_software_version'),
  vnfdVersion: text('vnfd_version'),
  checksum: jsonb('checksum').$type<{ algorithm: string; hash: string }>(),
  /** ProblemDetails of the last failed onboarding, cleared on success. */
  onboardingFailureDetails: jsonb('onboarding_failure_details').$type<Json>(),
  /** The parsed VNFD model (model/vnfd.ts). */
  vnfd: jsonb('vnfd').$type<Vnfd>(),
  /** Paths of the VNFD yaml files (entry + imports), for GET .../vnfd. */
  vnfdFiles: jsonb('vnfd_files').$type<string[]>(),
  /** SOL005 softwareImages[] and additionalArtifacts[], computed at onboarding. */
  softwareImages: jsonb('software_images').$type<Json[]>(),
  additionalArtifacts: jsonb('additional_artifacts').$type<Json[]>(),
  /** Size of the uploaded zip, counted against the project's QUOTA_PACKAGE_BYTES (null before an upload). */
  contentBytes: bigint('content_bytes', { mode: 'number' }),
  createdAt: text('created_at').notNull(),
}, (t) => [
  index('vnf_packages_vnfd_id').on(t.vnfdId), index('vnf_packages_project').on(t.projectId, t.createdAt, t.id), index('vnf_packages_created').on(t.createdAt, t.id),
  // one onboarded package per vnfdId in a project (onboarding checks it first; this holds under any race)
  uniqueIndex('vnf_packages_one_onboarded_vnfd').on(t.projectId, t.vnfdId).where(sql`onboarding_state = 'ONBOARDED'`),
  check('vnf_packages_onboarding_state', sql.raw(inList('onboarding_state', ONBOARDING_STATES))),
  check('vnf_packages_operational_state', sql.raw(inList('operational_state', OPERATIONAL_STATES))),
  check('vnf_packages_usage_state', sql.raw(inList('usage_state', USAGE_STATES))),
]);

/*
 * Package content (uploaded zips, the files of onboarded packages) is in the
 * content store (store/content): the content_* tables below or a
 * directory. Migration 0004 renamed the BLOB table of zips to
 * legacy_package_contents, which the API empties into the content store at
 * start (api/package-reconcile.ts).
 */

/** The index of an onboarded package's files (artifacts, BaseHOT, scripts); the bytes are in the content store under "<packageId>/files/<path>". */
export const vnfPackageFiles = pgTable('vnf_package_files', {
  packageId: text('package_id').notNull().references(() => vnfPackages.id, { onDelete: 'cascade' }),
  path: text('path').notNull(),
  /** The bytes, as versions before the content store kept them; the API moves them to the content store at start (NULL after). */
  legacyContent: bytea('content'),
  /** NULL only on rows of older versions not moved yet. */
  size: bigint('size', { mode: 'number' }),
  sha256: text('sha256'),
}, (t) => [primaryKey({ columns: [t.packageId, t.path] })]);

/** The database content store's objects: a key names the object (one put) whose chunks are complete; written last, so a half-written object has no row. */
export const contentObjects = pgTable('content_objects', {
  key: text('key').primaryKey(),
  /** Which put's chunks (content_chunks.object_id): a new put of the key gets a new id, the old chunks go when it commits. */
  objectId: text('object_id').notNull(),
  size: bigint('size', { mode: 'number' }).notNull(),
  /** Bytes per chunk (the last may be shorter). */
  chunkSize: integer('chunk_size').notNull(),
  sha256: text('sha256').notNull(),
  createdAt: text('created_at').notNull(),
}, (t) => [uniqueIndex('content_objects_object_id').on(t.objectId)]);

/** The bytes of content objects, about 1 MiB a row, read one row at a time. */
export const contentChunks = pgTable('content_chunks', {
  objectId: text('object_id').notNull(),
  seq: integer('seq').notNull(),
  data: bytea('data').notNull(),
  /** Chunks of no object older than a day are from a put that died with its process (swept at API start). */
  writtenAt: text('written_at').notNull(),
}, (t) => [primaryKey({ columns: [t.objectId, t.seq] })]);

export const vnfInstances = pgTable('vnf_instances', {
  id: text('id').primaryKey(),
  projectId: text('project_id').notNull().default(''),
  vnfInstanceName: text('vnf_instance_name'),
  vnfInstanceDescription: text('vnf_instance_description'),
  vnfdId: text('vnfd_id').notNull(),
  vnfPkgId: text('vnf_pkg_id').notNull().references(() => vnfPackages.id),
  vnfProvider: text('vnf_provider').notNull(),
  vnfProductName: text('vnf_product_name').notNull(),
  vnfSoftwareVersion: text('vnf_software_version').notNull(),
  vnfdVersion: text('vnfd_version').notNull(),
  instantiationState: text('instantiation_state', { enum: INSTANTIATION_STATES }).notNull(),
  /** Shown vimConnectionInfo (no secrets). */
  vimConnectionInfo: jsonb('vim_connection_info').$type<Json[]>().notNull(),
  instantiatedVnfInfo: jsonb('instantiated_vnf_info').$type<InstantiatedVnfInfo>(),
  metadata: jsonb('metadata').$type<Json>().notNull(),
  /** SOL003 VnfInstance.extensions and vnfConfigurableProperties (ModifyVnfInfo merges into them; null until set). */
  extensions: jsonb('extensions').$type<Json>(),
  vnfConfigurableProperties: jsonb('vnf_configurable_properties').$type<Json>(),
  /** Heat stack the instance lives in; kept across failed operations. */
  stackId: text('stack_id'),
  /** Which VIM (vims.id) the instance runs on. */
  vimId: text('vim_id').references(() => vims.id),
  /** The InstantiateVnfRequest it was instantiated with (sealed: it may hold secrets); heal and scale rebuild from it. */
  instantiateParamsSealed: text('instantiate_params_sealed'),
  createdAt: text('created_at').notNull(),
}, (t) => [
  index('vnf_instances_project').on(t.projectId, t.createdAt, t.id), index('vnf_instances_created').on(t.createdAt, t.id),
  check('vnf_instances_instantiation_state', sql.raw(inList('instantiation_state', INSTANTIATION_STATES))),
]);

export const vnfLcmOpOccs = pgTable('vnf_lcm_op_occs', {
  id: text('id').primaryKey(),
  /** The instance's project, copied so op occ queries filter without a join. */
  projectId: text('project_id').notNull().default(''),
  vnfInstanceId: text('vnf_instance_id').notNull(),
  operation: text('operation', { enum: LCM_OPERATIONS }).notNull(),
  operationState: text('operation_state', { enum: OP_STATES }).notNull(),
  stateEnteredTime: text('state_entered_time').notNull(),
  startTime: text('start_time').notNull(),
  isAutomaticInvocation: boolean('is_automatic_invocation').notNull().default(false),
  /** Request body with secrets masked (what the API shows). */
  operationParams: jsonb('operation_params').$type<Json>().notNull(),
  /** The full request, encrypted; activities read secrets from here. */
  operationParamsSealed: text('operation_params_sealed').notNull(),
  isCancelPending: boolean('is_cancel_pending').notNull().default(false),
  cancelMode: text('cancel_mode', { enum: CANCEL_MODES }),
  error: jsonb('error').$type<Json>(),
  resourceChanges: jsonb('resource_changes').$type<Json>(),
  changedInfo: jsonb('changed_info').$type<Json>(),
  /** SOL003 changedExtConnectivity: the ext VLs a change_ext_conn changed. */
  changedExtConnectivity: jsonb('changed_ext_connectivity').$type<ExtVirtualLinkInfo[]>(),
  lcmCoordinations: jsonb('lcm_coordinations').$type<Json[]>(),
  rejectedLcmCoordinations: jsonb('rejected_lcm_coordinations').$type<Json[]>(),
  /** Which step the workflow is on (shown while PROCESSING/ROLLING_BACK). */
  currentStep: text('current_step'),
  /** change_vnfpkg: how far the rolling update got (VNFCs moved, coordinated, rolled back), written by its child workflows. */
  rollingProgress: jsonb('rolling_progress').$type<{ moved?: number; coordinated?: number; rolledBack?: number }>(),
  /** The last state its notifications were queued for (null: none yet; the first queues START). */
  notifiedState: text('notified_state', { enum: OP_STATES }),
  /** Set when the workflow has been started (the reconciler starts the rest). */
  workflowStarted: boolean('workflow_started').notNull().default(false),
  /** The OpenTelemetry trace of the request that started it (null when tracing is off): an operator's way from the op to its trace. */
  traceId: text('trace_id'),
}, (t) => [
  index('op_occs_trace').on(t.traceId),
  index('op_occs_instance').on(t.vnfInstanceId), index('op_occs_state').on(t.operationState), index('op_occs_project').on(t.projectId, t.startTime, t.id), index('op_occs_started').on(t.startTime, t.id),
  // one open operation per VNF instance (createOpOcc checks it first; this holds under any race)
  uniqueIndex('op_occs_one_open').on(t.vnfInstanceId).where(sql`operation_state NOT IN ('COMPLETED', 'FAILED', 'ROLLED_BACK')`),
  check('op_occs_operation_state', sql.raw(inList('operation_state', OP_STATES))),
  check('op_occs_cancel_mode', sql.raw(`cancel_mode IS NULL OR ${inList('cancel_mode', CANCEL_MODES)}`)),
]);

/** SSH host keys pinned per VNFC on first use; a heal that replaces the VNFC's server forgets its pin. */
export const sshHostKeys = pgTable('ssh_host_keys', {
  vnfcId: text('vnfc_id').primaryKey(),
  fingerprint: text('fingerprint').notNull(),
  learnedAt: text('learned_at').notNull(),
});

/**
 * A change_vnfpkg coordination parked on its EM (202, or 503 Retry-After): the
 * wait's activity has handed its task token here and returned; the worker's
 * coordination poller (ops/vnflcm/change-vnfpkg/coordination-poller.ts) polls
 * the EM when `next_poll_at` (epoch ms) comes and completes the activity with
 * the decision. A parked op costs a row, not a running activity in a worker.
 */
export const coordinationWaits = pgTable('coordination_waits', {
  /** The op occ, the VNFC and the side (coordination-poller.ts waitKey): one wait per VNFC coordination. */
  id: text('id').primaryKey(),
  opOccId: text('op_occ_id').notNull().references(() => vnfLcmOpOccs.id, { onDelete: 'cascade' }),
  /** The activity's arguments (ids only, no secrets), as JSON. */
  args: text('args').notNull(),
  /** The waiting activity attempt's task token (base64); a retry's attempt replaces it. */
  taskToken: text('task_token').notNull(),
  /** The EM's Location after its 202; none while the POST is refused with 503. */
  location: text('location'),
  deadline: bigint('deadline', { mode: 'number' }).notNull(),
  timeoutMs: bigint('timeout_ms', { mode: 'number' }).notNull(),
  nextPollAt: bigint('next_poll_at', { mode: 'number' }).notNull(),
}, (t) => [index('coordination_waits_due').on(t.nextPollAt)]);

/**
 * Kubernetes clusters of the cluster engine (docs/cluster-engine.md): a
 * Tacker Kubernetes VNF's (kind vnf: its nodes are the instance's VNFCs) or a
 * Magnum cluster's. Settings are plain; logins and registry credentials are
 * one sealed value.
 */
export const clusters = pgTable('clusters', {
  id: text('id').primaryKey(),
  projectId: text('project_id').notNull(),
  kind: text('kind', { enum: CLUSTER_KINDS }).notNull(),
  name: text('name').notNull(),
  /** kind vnf: the VNF instance whose VNFCs are the nodes. */
  vnfInstanceId: text('vnf_instance_id'),
  vimId: text('vim_id').references(() => vims.id),
  /** The API endpoint's address (a master's, or the cluster CP's), and https://<it>:6443 once the API answers. */
  endpoint: text('endpoint'),
  apiAddress: text('api_address'),
  settings: jsonb('settings').$type<ClusterSettings>().notNull(),
  secretsSealed: text('secrets_sealed').notNull(),
  /** The PKI generation in use (cluster_pki); a CA rotation moves it on. */
  pkiGeneration: integer('pki_generation').notNull().default(1),
  /** The Kubernetes VIM the cluster is registered as (Tacker: vim_name). */
  registeredVimId: text('registered_vim_id').references(() => vims.id, { onDelete: 'set null' }),
  healthStatus: text('health_status', { enum: HEALTH_STATUSES }),
  healthStatusReason: jsonb('health_status_reason').$type<Record<string, string>>(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at'),
}, (t) => [
  index('clusters_project').on(t.projectId),
  uniqueIndex('clusters_vnf_instance').on(t.vnfInstanceId),
  check('clusters_kind', sql.raw(inList('kind', CLUSTER_KINDS))),
  check('clusters_health_status', sql.raw(`health_status IS NULL OR ${inList('health_status', HEALTH_STATUSES)}`)),
]);

/** A cluster's nodes: the server, its address, role and node group, and how far it got into the cluster. */
export const clusterNodes = pgTable('cluster_nodes', {
  clusterId: text('cluster_id').notNull().references(() => clusters.id, { onDelete: 'cascade' }),
  serverId: text('server_id').notNull(),
  /** The Kubernetes node name (kubeadm's nodeRegistration.name). */
  name: text('name').notNull(),
  address: text('address').notNull(),
  role: text('role', { enum: NODE_ROLES }).notNull(),
  nodegroup: text('nodegroup').notNull(),
  /** Whose SSH host key pin the node uses (a VNFC id; a Magnum node's server id). */
  hostKeyId: text('host_key_id').notNull(),
  joinState: text('join_state', { enum: JOIN_STATES }).notNull(),
  /** Install steps done on this server (model/cluster.ts NODE_STEPS). */
  doneSteps: jsonb('done_steps').$type<string[]>().notNull(),
  /** The PKI generation its certificates come from. */
  pkiGeneration: integer('pki_generation').notNull().default(1),
  createdAt: text('created_at').notNull(),
}, (t) => [
  primaryKey({ columns: [t.clusterId, t.serverId] }),
  check('cluster_nodes_role', sql.raw(inList('role', NODE_ROLES))),
  check('cluster_nodes_join_state', sql.raw(inList('join_state', JOIN_STATES))),
]);

/** The cluster's PKI, one row per generation: certificates in clear, private keys sealed. */
export const clusterPki = pgTable('cluster_pki', {
  clusterId: text('cluster_id').notNull().references(() => clusters.id, { onDelete: 'cascade' }),
  generation: integer('generation').notNull(),
  certs: jsonb('certs').$type<ClusterPkiCerts>().notNull(),
  keysSealed: text('keys_sealed').notNull(),
  createdAt: text('created_at').notNull(),
}, (t) => [primaryKey({ columns: [t.clusterId, t.generation] })]);

export { magnumTemplates, magnumClusters, magnumNodegroups, magnumQuotas, cadfEvents } from './schema-magnum-pg';
export { lccnSubscriptions, notificationOutbox } from './schema-notify-pg';
