/** VNF LCM op occs: as a project sees them (Scope), as the API starts them, and as the workflows record them. */
import { and, eq, inArray, not } from 'drizzle-orm';
import { type Store } from '../store';
import { isUniqueViolation, type Q } from '../sql-store';
import { FINAL_STATES, type OpState } from '../../model/lcm-operation';
import { bool, json, listPage, text, type ListSpec, type PageRequest } from './list-page';
import { first, type InstanceRow, type OpOccInsert, type OpOccRow } from './rows';
import { owned, ownedAnd, type Scope } from './scope';
import { refreshPackageUsage } from '../package-usage';

export type { OpOccRow };
type Json = Record<string, unknown>;

/** SOL003 VnfLcmOpOcc: the attributes a list filter reaches, in the op occ's columns. */
export const OP_OCC_LIST: ListSpec = {
  table: (t) => t.vnfLcmOpOccs,
  created: 'startTime',
  attributes: {
    id: text((t) => t.vnfLcmOpOccs.id),
    vnfInstanceId: text((t) => t.vnfLcmOpOccs.vnfInstanceId),
    operation: text((t) => t.vnfLcmOpOccs.operation),
    operationState: text((t) => t.vnfLcmOpOccs.operationState),
    stateEnteredTime: text((t) => t.vnfLcmOpOccs.stateEnteredTime),
    startTime: text((t) => t.vnfLcmOpOccs.startTime),
    isAutomaticInvocation: bool((t) => t.vnfLcmOpOccs.isAutomaticInvocation),
    isCancelPending: bool((t) => t.vnfLcmOpOccs.isCancelPending),
    cancelMode: text((t) => t.vnfLcmOpOccs.cancelMode),
    error: json((t) => t.vnfLcmOpOccs.error),
    // not SOL003's: the trace of the request that started it (README "Traces")
    traceId: text((t) => t.vnfLcmOpOccs.traceId),
  },
  omittable: {
    operationParams: { operationParams: {} },
    // the sealed request serves only to mask the error's texts
    error: { error: null, operationParamsSealed: '' },
    resourceChanges: { resourceChanges: null }, changedInfo: { changedInfo: null }, changedExtConnectivity: { changedExtConnectivity: null },
    lcmCoordinations: { lcmCoordinations: null }, rejectedLcmCoordinations: { rejectedLcmCoordinations: null },
  },
};

/** One page of a project's op occs, filtered in SQL. */
export function pageOfOpOccs(store: Store, scope: Scope, page: PageRequest) {
  return listPage<OpOccRow>(store, OP_OCC_LIST, (t) => owned(t.vnfLcmOpOccs.projectId, scope), page);
}

export function findOpOcc(store: Store, scope: Scope, id: string): Promise<OpOccRow | undefined> {
  return store.read(({ db, t }) => first(db.select().from(t.vnfLcmOpOccs).where(ownedAnd(t.vnfLcmOpOccs.projectId, scope, eq(t.vnfLcmOpOccs.id, id))).limit(1)));
}

/** An op occ of any project (the system's view). */
export function opOccById(store: Store, id: string): Promise<OpOccRow | undefined> {
  return store.read((q) => opOccIn(q, id));
}

function opOccIn({ db, t }: Q, id: string): Promise<OpOccRow | undefined> {
  return first(db.select().from(t.vnfLcmOpOccs).where(eq(t.vnfLcmOpOccs.id, id)).limit(1));
}

export interface NewOpOcc {
  scope: Scope;
  instanceId: string;
  /** The row minus what comes from the instance (its project). */
  row: Omit<OpOccInsert, 'projectId' | 'vnfInstanceId'>;
  /** Checks and writes of the caller in the same transaction; may throw (nothing is written then). */
  withInstance: (q: Q, inst: InstanceRow) => Promise<Partial<InstanceRow> | void>;
}

/**
 * Records a new op occ, in one transaction that also enforces one open
 * operation per VNF instance. Throws NoInstance / OpenOperation (the caller
 * maps them to 404 / 409), or whatever withInstance throws.
 */
export async function createOpOcc(store: Store, n: NewOpOcc): Promise<OpOccRow> {
  try {
    return await insertOpOcc(store, n);
  } catch (e) {
    // the index op_occs_one_open, should a race get past the check: the same answer as the check's
    const open = isUniqueViolation(e) ? await store.read((q) => openOpOccOf(q, n.instanceId)) : undefined;
    throw open ? new OpenOperation(n.instanceId, open) : e;
  }
}

function insertOpOcc(store: Store, n: NewOpOcc): Promise<OpOccRow> {
  return store.tx(async (q) => {
    const { db, t } = q;
    const inst = await first(db.select().from(t.vnfInstances).where(ownedAnd(t.vnfInstances.projectId, n.scope, eq(t.vnfInstances.id, n.instanceId))).limit(1));
    if (!inst) throw new NoInstance(n.instanceId);
    const ongoing = await openOpOccOf(q, n.instanceId);
    if (ongoing) throw new OpenOperation(n.instanceId, ongoing);
    const extra = await n.withInstance(q, inst);
    if (extra) await db.update(t.vnfInstances).set(extra).where(eq(t.vnfInstances.id, inst.id));
    const [row] = await db.insert(t.vnfLcmOpOccs).values({ ...n.row, projectId: inst.projectId, vnfInstanceId: inst.id }).returning();
    return row;
  });
}

export class NoInstance extends Error {
  constructor(readonly instanceId: string) { super(`VNF instance ${instanceId} not found`); }
}
export class OpenOperation extends Error {
  constructor(readonly instanceId: string, readonly open: Pick<OpOccRow, 'id' | 'operation' | 'operationState'>) {
    super(`VNF instance ${instanceId} has operation ${open.id} (${open.operation}) in ${open.operationState}; finish it first`);
  }
}

/** The instance's operation that has not ended, if any. */
export function openOpOccOf({ db, t }: Q, instanceId: string): Promise<Pick<OpOccRow, 'id' | 'operation' | 'operationState'> | undefined> {
  return first(db.select({ id: t.vnfLcmOpOccs.id, operation: t.vnfLcmOpOccs.operation, operationState: t.vnfLcmOpOccs.operationState })
    .from(t.vnfLcmOpOccs)
    .where(and(eq(t.vnfLcmOpOccs.vnfInstanceId, instanceId), not(inArray(t.vnfLcmOpOccs.operationState, [...FINAL_STATES])))).limit(1));
}

export function deleteOpOcc(store: Store, id: string): Promise<void> {
  return store.read(async ({ db, t }) => { await db.delete(t.vnfLcmOpOccs).where(eq(t.vnfLcmOpOccs.id, id)); });
}

export function markWorkflowStarted(store: Store, id: string): Promise<void> {
  return store.read(async ({ db, t }) => { await db.update(t.vnfLcmOpOccs).set({ workflowStarted: true }).where(eq(t.vnfLcmOpOccs.id, id)); });
}

/** Op occs whose workflow a crash left unstarted. */
export function unstartedOpOccs(store: Store): Promise<OpOccRow[]> {
  return store.read(({ db, t }) => db.select().from(t.vnfLcmOpOccs).where(eq(t.vnfLcmOpOccs.workflowStarted, false)));
}

/** Started op occs not in a final state. */
export async function openStartedOpOccIds(store: Store): Promise<string[]> {
  const rows = await store.read(({ db, t }) => db.select({ id: t.vnfLcmOpOccs.id }).from(t.vnfLcmOpOccs)
    .where(and(eq(t.vnfLcmOpOccs.workflowStarted, true), not(inArray(t.vnfLcmOpOccs.operationState, [...FINAL_STATES])))));
  return rows.map((r) => r.id);
}

/**
 * FAILED with `error`, only if the op is still in `from` (nobody moved it
 * meanwhile); true when it was. `alsoIn` runs in the same transaction with
 * the row as updated (the notifications of the change), what it returns is
 * written too.
 */
export function failOpOccIfIn(store: Store, id: string, from: OpState, error: Json, alsoIn?: (q: Q, row: OpOccRow) => Promise<Partial<Omit<OpOccRow, 'id'>> | void>): Promise<boolean> {
  return store.tx(async (q) => {
    const { db, t } = q;
    const [row] = await db.update(t.vnfLcmOpOccs).set({
      operationState: 'FAILED', stateEnteredTime: new Date().toISOString(), isCancelPending: false, error,
    }).where(and(eq(t.vnfLcmOpOccs.id, id), eq(t.vnfLcmOpOccs.operationState, from))).returning();
    if (!row) return false;
    const more = await alsoIn?.(q, row);
    if (more) await db.update(t.vnfLcmOpOccs).set(more).where(eq(t.vnfLcmOpOccs.id, id));
    return true;
  });
}

/** The workflow's view of its op: state, error, step, cancel flags (unset fields stay). */
export function updateOpOcc(store: Store, id: string, set: Partial<Omit<OpOccRow, 'id'>>): Promise<void> {
  return store.read(async ({ db, t }) => { await db.update(t.vnfLcmOpOccs).set(set).where(eq(t.vnfLcmOpOccs.id, id)); });
}

/**
 * The update and, in the same transaction, `alsoIn` with the row as updated
 * (it queues the notifications of a state change); what `alsoIn` returns is
 * written too. Nothing of either is written without the other.
 */
export function updateOpOccWith(store: Store, id: string, set: Partial<Omit<OpOccRow, 'id'>>, alsoIn: (q: Q, row: OpOccRow) => Promise<Partial<Omit<OpOccRow, 'id'>> | void>): Promise<void> {
  return store.tx(async (q) => {
    const [row] = await q.db.update(q.t.vnfLcmOpOccs).set(set).where(eq(q.t.vnfLcmOpOccs.id, id)).returning();
    if (!row) return;
    const more = await alsoIn(q, row);
    if (more) await q.db.update(q.t.vnfLcmOpOccs).set(more).where(eq(q.t.vnfLcmOpOccs.id, id));
  });
}

/** currentStep, and the rolling counters merged into what is there. */
export function recordStep(store: Store, id: string, step: string, rolling?: NonNullable<OpOccRow['rollingProgress']>): Promise<void> {
  return store.tx(async (q) => {
    const prev = (await opOccIn(q, id))?.rollingProgress ?? {};
    await q.db.update(q.t.vnfLcmOpOccs).set({ currentStep: step, ...(rolling ? { rollingProgress: { ...prev, ...rolling } } : {}) })
      .where(eq(q.t.vnfLcmOpOccs.id, id));
  });
}

/** lcmCoordinations[] / rejectedLcmCoordinations[]: the entry upserted by id (appended without one). */
export function upsertCoordination(store: Store, id: string, list: 'lcmCoordinations' | 'rejectedLcmCoordinations', entry: Json): Promise<void> {
  return store.tx(async (q) => {
    const op = await opOccIn(q, id);
    if (!op) return;
    const items = [...(op[list] ?? [])];
    const at = entry.id ? items.findIndex((e) => e.id === entry.id) : -1;
    if (at >= 0) items[at] = { ...items[at], ...entry }; else items.push(entry);
    await q.db.update(q.t.vnfLcmOpOccs).set({ [list]: items }).where(eq(q.t.vnfLcmOpOccs.id, id));
  });
}

/**
 * The instance and its op occ change together (instantiatedVnfInfo and
 * resourceChanges; a package switch and changedInfo), and the usage state of
 * the packages named in `packagesInvolved` follows.
 */
export function updateInstanceAndOpOcc(store: Store, a: {
  instanceId: string; instance: Partial<Omit<InstanceRow, 'id'>>; opOccId: string; opOcc?: Partial<Omit<OpOccRow, 'id'>>; packagesInvolved?: string[];
}): Promise<void> {
  return store.tx(async (q) => {
    await q.db.update(q.t.vnfInstances).set(a.instance).where(eq(q.t.vnfInstances.id, a.instanceId));
    if (a.opOcc) await q.db.update(q.t.vnfLcmOpOccs).set(a.opOcc).where(eq(q.t.vnfLcmOpOccs.id, a.opOccId));
    for (const p of a.packagesInvolved ?? []) await refreshPackageUsage(q, p);
  });
}

