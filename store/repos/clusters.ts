/** The cluster engine's clusters, their nodes and their PKI generations. */
import { and, eq, inArray } from 'drizzle-orm';
import type { NodeStep } from '../../model/cluster';
import type * as schema from '../schema';
import type { Store } from '../store';
import type { SqlStore } from '../sql-store';
import { first } from './rows';
import { owned, ownedAnd, type Scope } from './scope';

export type ClusterRow = typeof schema.clusters.$inferSelect;
export type ClusterInsert = typeof schema.clusters.$inferInsert;
export type ClusterNodeRow = typeof schema.clusterNodes.$inferSelect;
export type ClusterNodeInsert = typeof schema.clusterNodes.$inferInsert;
export type ClusterPkiRow = typeof schema.clusterPki.$inferSelect;

export function clusterById(store: SqlStore, id: string): Promise<ClusterRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.clusters).where(eq(t.clusters.id, id)).limit(1)));
}

export function findCluster(store: Store, scope: Scope, id: string): Promise<ClusterRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.clusters).where(ownedAnd(t.clusters.projectId, scope, eq(t.clusters.id, id))).limit(1)));
}

export function listClusters(store: Store, scope: Scope): Promise<ClusterRow[]> {
  return store.read(({ db, t }) => db.select().from(t.clusters).where(owned(t.clusters.projectId, scope)));
}

export function clusterOfVnf(store: Store, vnfInstanceId: string): Promise<ClusterRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.clusters).where(eq(t.clusters.vnfInstanceId, vnfInstanceId)).limit(1)));
}

/** A new cluster with its first PKI generation, or the one that is already there (a retried activity). */
export function createCluster(store: Store, row: ClusterInsert, pki: Pick<ClusterPkiRow, 'certs' | 'keysSealed'>): Promise<ClusterRow> {
  return store.tx(async ({ db, t }) => {
    const [existing] = await db.select().from(t.clusters).where(eq(t.clusters.id, row.id)).limit(1);
    if (existing) return existing;
    const [made] = await db.insert(t.clusters).values(row).returning();
    await db.insert(t.clusterPki).values({ clusterId: row.id, generation: made.pkiGeneration, ...pki, createdAt: made.createdAt });
    return made;
  });
}

export function updateCluster(store: Store, id: string, set: Partial<Omit<ClusterRow, 'id' | 'projectId' | 'kind'>>): Promise<void> {
  return store.read(async ({ db, t }) => { await db.update(t.clusters).set({ ...set, updatedAt: new Date().toISOString() }).where(eq(t.clusters.id, id)); });
}

/** The cluster, its nodes and PKI (cascade). */
export function deleteCluster(store: Store, id: string): Promise<void> {
  return store.read(async ({ db, t }) => { await db.delete(t.clusters).where(eq(t.clusters.id, id)); });
}

export function clusterNodes(store: SqlStore, clusterId: string): Promise<ClusterNodeRow[]> {
  return store.read(({ db, t }) => db.select().from(t.clusterNodes).where(eq(t.clusterNodes.clusterId, clusterId)));
}

export function clusterNode(store: Store, clusterId: string, serverId: string): Promise<ClusterNodeRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.clusterNodes)
    .where(and(eq(t.clusterNodes.clusterId, clusterId), eq(t.clusterNodes.serverId, serverId))).limit(1)));
}

/**
 * The nodes as the VIM has them now: new servers are added (pending), known
 * ones keep their state, and servers that are gone are removed.
 */
export function syncClusterNodes(store: Store, clusterId: string, nodes: Omit<ClusterNodeInsert, 'clusterId' | 'joinState' | 'doneSteps' | 'createdAt'>[]): Promise<ClusterNodeRow[]> {
  return store.tx(async ({ db, t }) => {
    const have = await db.select().from(t.clusterNodes).where(eq(t.clusterNodes.clusterId, clusterId));
    const now = new Date().toISOString();
    const gone = have.filter((h) => !nodes.some((n) => n.serverId === h.serverId)).map((h) => h.serverId);
    if (gone.length) await db.delete(t.clusterNodes).where(and(eq(t.clusterNodes.clusterId, clusterId), inArray(t.clusterNodes.serverId, gone)));
    for (const n of nodes) {
      const known = have.find((h) => h.serverId === n.serverId);
      if (known) await db.update(t.clusterNodes).set({ address: n.address, name: n.name, hostKeyId: n.hostKeyId }).where(and(eq(t.clusterNodes.clusterId, clusterId), eq(t.clusterNodes.serverId, n.serverId)));
      else await db.insert(t.clusterNodes).values({ ...n, clusterId, joinState: 'pending', doneSteps: [], createdAt: now });
    }
    return db.select().from(t.clusterNodes).where(eq(t.clusterNodes.clusterId, clusterId));
  });
}

/** A node finished an install step (kept, so a retry skips it). */
export function recordNodeStep(store: Store, clusterId: string, serverId: string, step: NodeStep): Promise<void> {
  return store.tx(async ({ db, t }) => {
    const where = and(eq(t.clusterNodes.clusterId, clusterId), eq(t.clusterNodes.serverId, serverId));
    const [n] = await db.select().from(t.clusterNodes).where(where).limit(1);
    if (!n || n.doneSteps.includes(step)) return;
    await db.update(t.clusterNodes).set({ doneSteps: [...n.doneSteps, step], joinState: n.joinState === 'pending' ? 'installing' : n.joinState }).where(where);
  });
}

export function setNodeJoinState(store: Store, clusterId: string, serverId: string, set: Pick<ClusterNodeRow, 'joinState'> & Partial<Pick<ClusterNodeRow, 'pkiGeneration' | 'doneSteps'>>): Promise<void> {
  return store.read(async ({ db, t }) => {
    await db.update(t.clusterNodes).set(set).where(and(eq(t.clusterNodes.clusterId, clusterId), eq(t.clusterNodes.serverId, serverId)));
  });
}

export function clusterPki(store: Store, clusterId: string, generation: number): Promise<ClusterPkiRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.clusterPki)
    .where(and(eq(t.clusterPki.clusterId, clusterId), eq(t.clusterPki.generation, generation))).limit(1)));
}

/** A new PKI generation (a CA rotation), unless it is there already. */
export function addClusterPki(store: Store, clusterId: string, generation: number, pki: Pick<ClusterPkiRow, 'certs' | 'keysSealed'>): Promise<void> {
  return store.read(async ({ db, t }) => {
    await db.insert(t.clusterPki).values({ clusterId, generation, ...pki, createdAt: new Date().toISOString() }).onConflictDoNothing();
  });
}
