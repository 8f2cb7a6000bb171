/**
 * Magnum clusters and their nodegroups. One operation at a time per
 * cluster: beginOperation() checks the status and writes the operation's
 * first status in one transaction, and only the workflow it names may
 * record statuses afterwards (a fence: a superseded workflow's late write
 * changes nothing).
 */
import { and, count, eq, ne, sum } from 'drizzle-orm';
import { checkQuota } from '../../quota';
import type * as schema from '../../schema';
import type { Store } from '../../store';
import type { Q, SqlStore } from '../../sql-store';
import { first } from '../rows';
import { owned, ownedAnd, type Scope } from '../scope';

export type MagnumClusterRow = typeof schema.magnumClusters.$inferSelect;
export type MagnumClusterInsert = typeof schema.magnumClusters.$inferInsert;
export type NodegroupRow = typeof schema.magnumNodegroups.$inferSelect;
export type NodegroupInsert = typeof schema.magnumNodegroups.$inferInsert;

/** Refused inside a transaction: nothing was written. */
export class Refused extends Error {
  constructor(readonly status: number, message: string) { super(message); }
}

export function magnumClusters(store: Store, scope: Scope): Promise<MagnumClusterRow[]> {
  return store.read(({ db, t }) => db.select().from(t.magnumClusters).where(owned(t.magnumClusters.projectId, scope)).orderBy(t.magnumClusters.createdAt));
}

export function magnumClusterById(store: SqlStore, id: string, scope?: Scope): Promise<MagnumClusterRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.magnumClusters)
    .where(scope ? ownedAnd(t.magnumClusters.projectId, scope, eq(t.magnumClusters.id, id)) : eq(t.magnumClusters.id, id)).limit(1)));
}

export function clustersOfTemplate(store: Store, templateId: string): Promise<MagnumClusterRow[]> {
  return store.read(({ db, t }) => db.select().from(t.magnumClusters).where(eq(t.magnumClusters.templateId, templateId)));
}

export function nodegroupsOf(store: SqlStore, clusterId: string): Promise<NodegroupRow[]> {
  return store.read(({ db, t }) => db.select().from(t.magnumNodegroups).where(eq(t.magnumNodegroups.clusterId, clusterId)).orderBy(t.magnumNodegroups.id));
}

/** Nodegroups of many clusters at once (lists). */
export function nodegroupsOfProject(store: Store, scope: Scope): Promise<NodegroupRow[]> {
  return store.read(({ db, t }) => db.select().from(t.magnumNodegroups).where(owned(t.magnumNodegroups.projectId, scope)).orderBy(t.magnumNodegroups.id));
}

/**
 * Checks that a project's nodes (every nodegroup's node count, `except` one nodegroup) plus `adding` stay within
 * QUOTA_CLUSTER_NODES; in the caller's transaction (QuotaExceeded writes nothing).
 */
export async function checkNodeQuota(q: Q, projectId: string, limit: number, adding: number, except?: number): Promise<void> {
  const { db, t } = q;
  const [{ used }] = await db.select({ used: sum(t.magnumNodegroups.nodeCount) }).from(t.magnumNodegroups)
    .where(except === undefined ? eq(t.magnumNodegroups.projectId, projectId) : and(eq(t.magnumNodegroups.projectId, projectId), ne(t.magnumNodegroups.id, except)));
  checkQuota('clusterNodes', limit, Number(used ?? 0), adding);
}

/** A new cluster with its nodegroups, unless the project is at its cluster or node quota (checked in the same transaction). */
/** Writes a new cluster and its nodegroups within the project's quotas; returns the rows as written. */
export function createMagnumCluster(store: Store, row: MagnumClusterInsert, nodegroups: Omit<NodegroupInsert, 'clusterId'>[], quota: { clusters: number; nodes: number }): Promise<{ cluster: MagnumClusterRow; nodegroups: NodegroupRow[] }> {
  return store.tx(async (q) => {
    const { db, t } = q;
    const [{ n }] = await db.select({ n: count() }).from(t.magnumClusters).where(eq(t.magnumClusters.projectId, row.projectId));
    if (n >= quota.clusters) {
      throw new Refused(403, `Resource limit exceeded: You have reached the maximum clusters per project, ${quota.clusters}. You may delete a cluster to make room for a new one.`);
    }
    await checkNodeQuota(q, row.projectId, quota.nodes, nodegroups.reduce((a, g) => a + g.nodeCount, 0));
    await db.insert(t.magnumClusters).values(row);
    const made = await db.insert(t.magnumNodegroups).values(nodegroups.map((g) => ({ ...g, clusterId: row.id }))).returning();
    // the create changes every nodegroup it makes
    const [cluster] = await db.update(t.magnumClusters).set({ opNodegroups: made.map((g) => g.id) }).where(eq(t.magnumClusters.id, row.id)).returning();
    return { cluster, nodegroups: made };
  });
}

export interface BeginOperation {
  operation: MagnumClusterRow['operation'];
  operationId: string;
  status: MagnumClusterRow['status'];
  opParams?: Record<string, unknown>;
  /** The trace of the request that asked for it (common/tracing.ts activeTraceId), when tracing is on. */
  traceId?: string;
  /** Shown from the first moment (auto-healing's reason), not only once the workflow records its first status. */
  statusReason?: string;
  /** Checks the fresh rows; throws Refused to write nothing. */
  check(cluster: MagnumClusterRow, nodegroups: NodegroupRow[]): void;
  /** The nodegroups the operation changes, given their status now (may insert one: nodegroup create). */
  nodegroups(q: Q, cluster: MagnumClusterRow, nodegroups: NodegroupRow[]): Promise<{ ids: number[]; status: NodegroupRow['status'] }>;
}

/** Starts an operation on the cluster: checks and first statuses in one transaction. */
export function beginOperation(store: Store, clusterId: string, b: BeginOperation): Promise<MagnumClusterRow> {
  return store.tx(async (q) => {
    const { db, t } = q;
    const [cluster] = await db.select().from(t.magnumClusters).where(eq(t.magnumClusters.id, clusterId)).limit(1);
    if (!cluster) throw new Refused(404, `Cluster ${clusterId} could not be found.`);
    const groups = await db.select().from(t.magnumNodegroups).where(eq(t.magnumNodegroups.clusterId, clusterId));
    b.check(cluster, groups);
    const { ids, status } = await b.nodegroups(q, cluster, groups);
    const now = new Date().toISOString();
    for (const id of ids) await db.update(t.magnumNodegroups).set({ status, statusReason: null, updatedAt: now }).where(eq(t.magnumNodegroups.id, id));
    const [updated] = await db.update(t.magnumClusters).set({
      status: b.status, statusReason: b.statusReason ?? null, operation: b.operation, operationId: b.operationId, opNodegroups: ids,
      opParams: b.opParams ?? {}, workflowStarted: false, traceId: b.traceId ?? null, updatedAt: now,
    }).where(eq(t.magnumClusters.id, clusterId)).returning();
    return updated;
  });
}

export function markWorkflowStarted(store: Store, clusterId: string, operationId: string): Promise<void> {
  return store.read(async ({ db, t }) => {
    await db.update(t.magnumClusters).set({ workflowStarted: true }).where(and(eq(t.magnumClusters.id, clusterId), eq(t.magnumClusters.operationId, operationId)));
  });
}

/** Operations the API recorded but whose workflow it may not have started (a crash in between). */
export function unstartedOperations(store: Store): Promise<MagnumClusterRow[]> {
  return store.read(({ db, t }) => db.select().from(t.magnumClusters).where(eq(t.magnumClusters.workflowStarted, false)));
}

/** What one status write changes, in one transaction with the fence; false when the workflow is no longer the cluster's operation. */
export function writeFenced(store: Store, clusterId: string, operationId: string, fn: (q: Q, cluster: MagnumClusterRow, groups: NodegroupRow[]) => Promise<void>): Promise<MagnumClusterRow | undefined> {
  return store.tx(async (q) => {
    const { db, t } = q;
    const [cluster] = await db.select().from(t.magnumClusters).where(and(eq(t.magnumClusters.id, clusterId), eq(t.magnumClusters.operationId, operationId))).limit(1);
    if (!cluster) return undefined;
    const groups = await db.select().from(t.magnumNodegroups).where(eq(t.magnumNodegroups.clusterId, clusterId));
    await fn(q, cluster, groups);
    return cluster;
  });
}

export function updateMagnumCluster(store: Store, id: string, set: Partial<MagnumClusterInsert>): Promise<void> {
  return store.read(async ({ db, t }) => { await db.update(t.magnumClusters).set({ ...set, updatedAt: new Date().toISOString() }).where(eq(t.magnumClusters.id, id)); });
}

export function updateNodegroup(store: Store, id: number, set: Partial<NodegroupInsert>): Promise<void> {
  return store.read(async ({ db, t }) => { await db.update(t.magnumNodegroups).set({ ...set, updatedAt: new Date().toISOString() }).where(eq(t.magnumNodegroups.id, id)); });
}

/** The Magnum cluster, its nodegroups and the cluster engine's rows of the same id (nodes, PKI). */
export function deleteMagnumCluster(store: Store, id: string): Promise<void> {
  return store.tx(async ({ db, t }) => {
    await db.delete(t.magnumNodegroups).where(eq(t.magnumNodegroups.clusterId, id));
    await db.delete(t.magnumClusters).where(eq(t.magnumClusters.id, id));
    await db.delete(t.clusters).where(eq(t.clusters.id, id));
  });
}
