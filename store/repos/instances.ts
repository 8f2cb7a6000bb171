/** VNF instances: as a project sees them (Scope), and as the workflows change them. */
import { and, count, eq, inArray, not } from 'drizzle-orm';
import { checkQuota } from '../quota';
import type { Store } from '../store';
import type { Q } from '../sql-store';
import { FINAL_STATES } from '../../model/lcm-operation';
import { refreshPackageUsage } from '../package-usage';
import { json, listPage, text, type ListSpec, type PageRequest } from './list-page';
import { first, type InstanceInsert, type InstanceRow } from './rows';
import { owned, ownedAnd, type Scope } from './scope';
import type { InstantiatedVnfInfo } from '../../model/instantiated-vnf-info';

export type { InstanceRow };

/** SOL003 VnfInstance: the attributes a list filter reaches, in the instance's columns. */
export const INSTANCE_LIST: ListSpec = {
  table: (t) => t.vnfInstances,
  created: 'createdAt',
  attributes: {
    id: text((t) => t.vnfInstances.id),
    vnfInstanceName: text((t) => t.vnfInstances.vnfInstanceName),
    vnfInstanceDescription: text((t) => t.vnfInstances.vnfInstanceDescription),
    vnfdId: text((t) => t.vnfInstances.vnfdId),
    vnfPkgId: text((t) => t.vnfInstances.vnfPkgId),
    vnfProvider: text((t) => t.vnfInstances.vnfProvider),
    vnfProductName: text((t) => t.vnfInstances.vnfProductName),
    vnfSoftwareVersion: text((t) => t.vnfInstances.vnfSoftwareVersion),
    vnfdVersion: text((t) => t.vnfInstances.vnfdVersion),
    instantiationState: text((t) => t.vnfInstances.instantiationState),
    metadata: json((t) => t.vnfInstances.metadata),
    extensions: json((t) => t.vnfInstances.extensions),
    vnfConfigurableProperties: json((t) => t.vnfInstances.vnfConfigurableProperties),
  },
  unlisted: { instantiateParamsSealed: null },
  omittable: {
    instantiatedVnfInfo: { instantiatedVnfInfo: null }, vimConnectionInfo: { vimConnectionInfo: [] }, metadata: { metadata: {} },
    extensions: { extensions: null }, vnfConfigurableProperties: { vnfConfigurableProperties: null },
  },
};

/** One page of a project's instances, filtered in SQL. */
export function pageOfInstances(store: Store, scope: Scope, page: PageRequest) {
  return listPage<InstanceRow>(store, INSTANCE_LIST, (t) => owned(t.vnfInstances.projectId, scope), page);
}

export function findInstance(store: Store, scope: Scope, id: string): Promise<InstanceRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.vnfInstances).where(ownedAnd(t.vnfInstances.projectId, scope, eq(t.vnfInstances.id, id))).limit(1)));
}

/** An instance of any project (the system's view). */
export function instanceById(store: Store, id: string): Promise<InstanceRow | undefined> {
  return store.read((q) => instanceIn(q, id));
}

/** Inside a transaction: the instance row as it is now. */
export function instanceIn({ db, t }: Q, id: string): Promise<InstanceRow | undefined> {
  return first(db.select().from(t.vnfInstances).where(eq(t.vnfInstances.id, id)).limit(1));
}

/** What a caller writes with an instance's creation or deletion, in the same transaction (its notifications). */
export type WithInstance<T> = (q: Q, inst: InstanceRow) => Promise<T>;

/** A new NOT_INSTANTIATED instance; its package is IN_USE from now on. Returns the row written, and what `alsoIn` returned. */
export function createInstance<T = void>(store: Store, row: InstanceInsert, alsoIn?: WithInstance<T>, quota?: number): Promise<{ instance: InstanceRow; also: T | undefined }> {
  return store.tx(async (q) => {
    if (quota !== undefined) {
      const [{ n }] = await q.db.select({ n: count() }).from(q.t.vnfInstances).where(eq(q.t.vnfInstances.projectId, row.projectId ?? ''));
      checkQuota('instances', quota, n);
    }
    const [inst] = await q.db.insert(q.t.vnfInstances).values(row).returning();
    await refreshPackageUsage(q, row.vnfPkgId);
    return { instance: inst, also: await alsoIn?.(q, inst) };
  });
}

/**
 * Deletes a NOT_INSTANTIATED instance with no operation running (even an
 * instantiate, while the instance is NOT_INSTANTIATED, owns it). Returns why
 * not, or undefined once it is gone (its package's usage follows).
 */
export function deleteIdleInstance(store: Store, id: string, alsoIn?: WithInstance<unknown>): Promise<string | undefined> {
  return store.tx(async (q) => {
    const { db, t } = q;
    const open = await first(db.select().from(t.vnfLcmOpOccs)
      .where(and(eq(t.vnfLcmOpOccs.vnfInstanceId, id), not(inArray(t.vnfLcmOpOccs.operationState, [...FINAL_STATES])))).limit(1));
    if (open) return `VNF instance ${id} has operation ${open.id} (${open.operation}) in ${open.operationState}`;
    const fresh = await instanceIn(q, id);
    if (fresh?.instantiationState !== 'NOT_INSTANTIATED') return `VNF instance ${id} is ${fresh?.instantiationState}; terminate it first`;
    await alsoIn?.(q, fresh);
    await db.delete(t.vnfInstances).where(eq(t.vnfInstances.id, id));
    await refreshPackageUsage(q, fresh.vnfPkgId);
    return undefined;
  });
}

export function setStackId(store: Store, vnfInstanceId: string, stackId: string | null): Promise<void> {
  return store.read(async ({ db, t }) => { await db.update(t.vnfInstances).set({ stackId }).where(eq(t.vnfInstances.id, vnfInstanceId)); });
}

/** An instantiated instance's info; an error for one that has none (not instantiated, or its row is older than the info). */
export function instantiatedInfoOf(inst: Pick<InstanceRow, 'id' | 'instantiatedVnfInfo'>): InstantiatedVnfInfo {
  if (!inst.instantiatedVnfInfo) throw new Error(`VNF instance ${inst.id} has no instantiatedVnfInfo (not instantiated)`);
  return inst.instantiatedVnfInfo;
}

export function setInstanceVimConnectionInfo(store: Store, id: string, vimConnectionInfo: InstanceRow['vimConnectionInfo']): Promise<void> {
  return store.read(async ({ db, t }) => { await db.update(t.vnfInstances).set({ vimConnectionInfo }).where(eq(t.vnfInstances.id, id)); });
}
