/**
 * A coordination parked in the store (ops/vnflcm/change-vnfpkg/coordination-parking.ts), against
 * the reference EM on 127.0.0.1 and a SQLite store: the activity POSTs and parks the wait with its
 * task token; the poller GETs at each Retry-After and hands the outcome to Temporal's async
 * completion (recorded here: the whole path through a real Temporal runs in
 * test/e2e/change-vnfpkg.test.ts and test/disruptive/change-vnfpkg-worker-kill.test.ts).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { MockActivityEnvironment } from '@temporalio/testing';
import { ActivityCancelledError, ActivityNotFoundError } from '@temporalio/client';
import { ApplicationFailure, CompleteAsyncError } from '@temporalio/activity';
import { openStore, type Store } from '../../store';
import { waitById } from '../../store/repos/coordination-waits';
import { createInstance } from '../../store/repos/instances';
import { createOpOcc } from '../../store/repos/op-occs';
import { createPackage } from '../../store/repos/packages';
import { createLogger } from '../../common/log';
import { cancelCoordination, getCoordination, postCoordination, type CoordTarget } from '../../coord/client';
import type { CoordArgs } from '../../ops/vnflcm/change-vnfpkg/coordination-exchanges';
import { dropParkedWait, parkForDecision, startCoordinationPoller, waitKey, type Completions } from '../../ops/vnflcm/change-vnfpkg/coordination-parking';
import type { CoordExchanges } from '../../ops/vnflcm/change-vnfpkg/coordination-wait';
import { startEm, type Em } from '../../em/server';

let em: Em;
let target: CoordTarget;
let dir: string;
let db: Store;
/** Set: the EM's GETs fail with it (as when it is unreachable). */
let brokenGet: Error | undefined;

const exchanges: CoordExchanges<CoordArgs> = {
  post: (a) => postCoordination(target, {
    vnfInstanceId: 'vnf-1', vnfLcmOpOccId: a.opOccId, lcmOperationType: 'CHANGE_VNFPKG',
    coordinationActionName: 'prv.tacker_organization.coordination_test', inputParams: { vnfcInstanceId: a.vnfcId },
    _links: { vnfLcmOpOcc: { href: `http://127.0.0.1:9890/vnflcm/v2/vnf_lcm_op_occs/${a.opOccId}` }, vnfInstance: { href: 'http://127.0.0.1:9890/vnflcm/v2/vnf_instances/vnf-1' } },
  }),
  get: (a) => (brokenGet ? Promise.reject(brokenGet) : getCoordination(target, a.location)),
  cancel: (a) => cancelCoordination(target, a.location),
};

/**
 * What Temporal was told, by task token; `refuse` makes the next outcome throw it; `heartbeats` answers a
 * token's heartbeat with the error Temporal's client throws (cancelled, gone, unreachable).
 */
class Told implements Completions {
  readonly outcomes: { token: string; result?: unknown; err?: unknown; cancelled?: true }[] = [];
  readonly heartbeats = new Map<string, Error>();
  refuse: Error | undefined;
  async complete(t: Uint8Array, result: unknown) { this.take(); this.outcomes.push({ token: Buffer.from(t).toString(), result }); }
  async fail(t: Uint8Array, err: unknown) { this.take(); this.outcomes.push({ token: Buffer.from(t).toString(), err }); }
  async heartbeat(t: Uint8Array) { const e = this.heartbeats.get(Buffer.from(t).toString()); if (e) throw e; }
  async reportCancellation(t: Uint8Array) { this.outcomes.push({ token: Buffer.from(t).toString(), cancelled: true }); }
  private take() {
    const e = this.refuse;
    this.refuse = undefined;
    if (e) throw e;
  }
}

/** An op occ for the waits to belong to (the store's foreign key). */
async function newOp(): Promise<string> {
  const scope = { projectId: 'p', all: false };
  const pkg = crypto.randomUUID();
  const inst = crypto.randomUUID();
  const now = new Date().toISOString();
  await createPackage(db, { id: pkg, projectId: 'p', userDefinedData: {} });
  await createInstance(db, {
    id: inst, projectId: 'p', vnfdId: 'd', vnfPkgId: pkg, vnfProvider: 'acme', vnfProductName: 'fw', vnfSoftwareVersion: '1.0', vnfdVersion: '1.0',
    instantiationState: 'INSTANTIATED', vimConnectionInfo: [], metadata: {}, createdAt: now,
  });
  const op = await createOpOcc(db, {
    scope, instanceId: inst, withInstance: async () => undefined,
    row: { id: crypto.randomUUID(), operation: 'CHANGE_VNFPKG', operationState: 'PROCESSING', stateEnteredTime: now, startTime: now, operationParams: {}, operationParamsSealed: 's' },
  });
  return op.id;
}

const fresh = async (): Promise<CoordArgs> => ({ opOccId: await newOp(), vnfcId: 'VDU1-0', isRollback: false });
const mine = (a: CoordArgs) => em.coordinations().filter((c) => c.request.vnfLcmOpOccId === a.opOccId);
const poller = (told: Completions) => startCoordinationPoller({
  db, completions: told, log: createLogger('test', 'silent'), tickMs: 60_000,
  exchanging: async (a) => ({ op: { id: a.opOccId, vnfInstanceId: 'vnf-1' }, param: undefined }),
  exchangesWith: () => exchanges,
});

/** A poller for `fn`, stopped after; what it told Temporal. */
async function withPoller(fn: (p: ReturnType<typeof poller>, told: Told) => Promise<void>): Promise<Told> {
  const told = new Told();
  const p = poller(told);
  try {
    await fn(p, told);
  } finally {
    await p.stop();
  }
  return told;
}

/** The activity's attempt, with its own task token: the decision, or 'parked'. */
async function attempt(a: CoordArgs, token: string, timeoutMs = 60_000, x = exchanges) {
  const env = new MockActivityEnvironment({ taskToken: Buffer.from(token), attempt: 1 });
  return env.run(parkForDecision, db, x, { ...a, deadline: Date.now() + timeoutMs, timeoutMs }).then(
    (coord) => coord,
    (e) => { if (e instanceof CompleteAsyncError) return 'parked' as const; throw e; },
  );
}

/** The wait's next poll made due now (as if its Retry-After had passed), then one round of the poller. */
async function pollRound(p: ReturnType<typeof poller>, a: CoordArgs) {
  await db.read(({ db: q, t }) => q.update(t.coordinationWaits).set({ nextPollAt: 0 }).where(eq(t.coordinationWaits.id, waitKey(a))));
  await p.pollDue();
  await p.settled();
}

beforeAll(async () => {
  em = await startEm({});
  target = { endpoint: em.url };
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coord-parking-'));
  db = await openStore({ dataDir: dir });
});
afterAll(async () => {
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  await em.close();
});

test('a 202 is parked with its Location; the poller GETs it until decided, completes the activity and forgets the wait', async () => {
  em.setBehaviour({ mode: 'async', result: 'CONTINUE', polls: 2, retryAfter: '30' });
  const a = await fresh();
  expect(await attempt(a, 'token-1')).toBe('parked');
  const parked = await waitById(db, waitKey(a));
  expect(parked).toMatchObject({ opOccId: a.opOccId, taskToken: Buffer.from('token-1').toString('base64'), location: expect.stringContaining('/lcmcoord/') });
  // not due before its Retry-After
  expect(parked!.nextPollAt).toBeGreaterThan(Date.now() + 25_000);
  const told = await withPoller(async (p, t) => {
    expect(await p.pollDue()).toBe(0);
    await pollRound(p, a);
    await pollRound(p, a);
    expect(t.outcomes).toEqual([]);
    await pollRound(p, a);
  });
  expect(told.outcomes).toMatchObject([{ token: 'token-1', result: { coordinationResult: 'CONTINUE' } }]);
  expect(await waitById(db, waitKey(a))).toBeUndefined();
  expect(mine(a)).toMatchObject([{ posts: 1, gets: 3, cancelled: false }]);
});

test('a decision at once is the activity\'s result, and nothing is parked', async () => {
  em.setBehaviour({ mode: 'sync', result: 'ABORT' });
  const a = await fresh();
  expect(await attempt(a, 'token-sync')).toMatchObject({ coordinationResult: 'ABORT' });
  expect(await waitById(db, waitKey(a))).toBeUndefined();
});

test('a retry\'s attempt takes the wait over without a second POST, and the decision goes to it', async () => {
  em.setBehaviour({ mode: 'hang', retryAfter: '30' });
  const a = await fresh();
  expect(await attempt(a, 'first')).toBe('parked');
  expect(await attempt(a, 'second')).toBe('parked');
  expect(await waitById(db, waitKey(a))).toMatchObject({ taskToken: Buffer.from('second').toString('base64') });
  expect(em.decidePending('CONTINUE', a.opOccId)).toBe(1);
  const told = await withPoller((p) => pollRound(p, a));
  expect(told.outcomes).toMatchObject([{ token: 'second', result: { coordinationResult: 'CONTINUE' } }]);
  expect(mine(a)).toMatchObject([{ posts: 1 }]);
});

test('the wait is in the store before its POST: a worker gone once the EM has the POST leaves it to any poller when the POST\'s claim runs out', async () => {
  em.setBehaviour({ mode: 'sync', result: 'CONTINUE' });
  const a = await fresh();
  let posted!: () => void;
  const reached = new Promise<void>((r) => { posted = r; });
  // the EM has the POST and answers; the worker is gone before it reads the answer
  const dying: CoordExchanges<CoordArgs> = { ...exchanges, post: async (x) => { await exchanges.post(x); posted(); return new Promise(() => undefined); } };
  void attempt(a, 'gone-mid-post', 600_000, dying);
  await reached;
  const w = await waitById(db, waitKey(a));
  expect(w).toMatchObject({ taskToken: Buffer.from('gone-mid-post').toString('base64'), location: null });
  // claimed for as long as a POST may take: no poller POSTs beside one still in flight
  expect(w!.nextPollAt).toBeGreaterThan(Date.now() + 60_000);
  const told = await withPoller(async (p) => {
    expect(await p.pollDue()).toBe(0);
    await pollRound(p, a);
  });
  // the poller POSTs again (it cannot know the EM had the first one) and the decision goes to the same attempt
  expect(told.outcomes).toMatchObject([{ token: 'gone-mid-post', result: { coordinationResult: 'CONTINUE' } }]);
  expect(mine(a).reduce((n, c) => n + c.posts, 0)).toBe(2);
  expect(await waitById(db, waitKey(a))).toBeUndefined();
});

test('a 503 is parked without a Location; the poller POSTs again after its Retry-After', async () => {
  em.setBehaviour({ mode: 'busy', times: 1, retryAfter: '30', then: { mode: 'sync', result: 'CONTINUE' } });
  const a = await fresh();
  expect(await attempt(a, 'busy')).toBe('parked');
  expect(await waitById(db, waitKey(a))).toMatchObject({ location: null });
  const told = await withPoller((p) => pollRound(p, a));
  expect(told.outcomes).toMatchObject([{ token: 'busy', result: { coordinationResult: 'CONTINUE' } }]);
});

test('the timeout: CoordinationTimeout (not retryable), the coordination cancelled on the EM', async () => {
  em.setBehaviour({ mode: 'hang', retryAfter: '1' });
  const a = await fresh();
  expect(await attempt(a, 'late', 1000)).toBe('parked');
  await new Promise((r) => setTimeout(r, 1100));
  const told = await withPoller((p) => pollRound(p, a));
  expect(told.outcomes).toHaveLength(1);
  expect(told.outcomes[0].err).toBeInstanceOf(ApplicationFailure);
  expect(told.outcomes[0].err).toMatchObject({ type: 'CoordinationTimeout', nonRetryable: true, message: 'coordination of VNFC VDU1-0 did not finish within 1 s' });
  expect(mine(a)).toMatchObject([{ posts: 1, cancelled: true }]);
  expect(await waitById(db, waitKey(a))).toBeUndefined();
});

test('an operator cancel drops the wait and cancels the coordination on the EM; the poller has nothing left to tell', async () => {
  em.setBehaviour({ mode: 'hang', retryAfter: '1' });
  const a = await fresh();
  expect(await attempt(a, 'dropped')).toBe('parked');
  await dropParkedWait(db, exchanges, a);
  expect(mine(a)).toMatchObject([{ posts: 1, cancelled: true }]);
  const told = await withPoller((p) => pollRound(p, a));
  expect(told.outcomes).toEqual([]);
  expect(await waitById(db, waitKey(a))).toBeUndefined();
});

test('a wait whose activity was cancelled (the cancel came while its POST was in flight) or is gone is cancelled on the EM at its next poll', async () => {
  em.setBehaviour({ mode: 'hang', retryAfter: '1' });
  const a = await fresh();
  // the op's cancel ran before the wait was parked: it found nothing to drop
  await dropParkedWait(db, exchanges, a);
  expect(await attempt(a, 'cancel-raced')).toBe('parked');
  const b = await fresh();
  expect(await attempt(b, 'terminated')).toBe('parked');
  const c = await fresh();
  expect(await attempt(c, 'temporal-down')).toBe('parked');
  const told = await withPoller(async (p, t) => {
    t.heartbeats.set('cancel-raced', new ActivityCancelledError('cancelled'));
    t.heartbeats.set('terminated', new ActivityNotFoundError('not found'));
    t.heartbeats.set('temporal-down', new Error('14 UNAVAILABLE: connection refused'));
    for (const x of [a, b, c]) await pollRound(p, x);
  });
  expect(mine(a)).toMatchObject([{ posts: 1, gets: 0, cancelled: true }]);
  expect(mine(b)).toMatchObject([{ posts: 1, gets: 0, cancelled: true }]);
  // Temporal unreachable: the wait is polled as usual, its activity still counts as waiting
  expect(mine(c)).toMatchObject([{ posts: 1, gets: 1, cancelled: false }]);
  expect(told.outcomes).toEqual([{ token: 'cancel-raced', cancelled: true }]);
  expect(await waitById(db, waitKey(a))).toBeUndefined();
  expect(await waitById(db, waitKey(b))).toBeUndefined();
  expect(await waitById(db, waitKey(c))).toBeDefined();
});

test('an EM error a retry may mend fails the attempt and keeps the wait for the retry; one that cannot, ends it', async () => {
  em.setBehaviour({ mode: 'async', result: 'CONTINUE', polls: 5, retryAfter: '1' });
  const a = await fresh();
  expect(await attempt(a, 'flaky')).toBe('parked');
  const told = await withPoller(async (p, told) => {
    brokenGet = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { retryable: true });
    await pollRound(p, a);
    expect(told.outcomes).toHaveLength(1);
    expect(told.outcomes[0]).toMatchObject({ token: 'flaky' });
    expect((told.outcomes[0].err as ApplicationFailure).nonRetryable).toBeFalsy();
    // kept, and not polled again until a retry's attempt takes it over
    const kept = await waitById(db, waitKey(a));
    expect(kept).toMatchObject({ location: expect.any(String) });
    expect(kept!.nextPollAt).toBeGreaterThan(Date.now() + 30_000);
    brokenGet = undefined;
    expect(await attempt(a, 'retry')).toBe('parked');
    em.setBehaviour({ mode: 'error', status: 400 });
    const b = await fresh();
    const refused = await attempt(b, 'refused').catch((e) => e);
    expect(refused).toMatchObject({ retryable: false });
    expect(await waitById(db, waitKey(b))).toBeUndefined();
  }).finally(() => { brokenGet = undefined; });
  expect(told.outcomes).toHaveLength(1);
  expect(mine(a)).toMatchObject([{ posts: 1 }]);
});

test('an outcome Temporal does not take is told again later; one for an activity that is gone forgets the wait', async () => {
  em.setBehaviour({ mode: 'async', result: 'CONTINUE', polls: 0, retryAfter: '1' });
  const a = await fresh();
  expect(await attempt(a, 'told-twice')).toBe('parked');
  await withPoller(async (p, told) => {
    told.refuse = new Error('14 UNAVAILABLE: connection refused');
    await pollRound(p, a);
    expect(told.outcomes).toEqual([]);
    const kept = await waitById(db, waitKey(a));
    expect(kept!.nextPollAt).toBeLessThan(Date.now() + 10_000);
    await pollRound(p, a);
    expect(told.outcomes).toMatchObject([{ token: 'told-twice', result: { coordinationResult: 'CONTINUE' } }]);
    expect(await waitById(db, waitKey(a))).toBeUndefined();

    const b = await fresh();
    expect(await attempt(b, 'gone')).toBe('parked');
    told.refuse = new ActivityNotFoundError('not found');
    await pollRound(p, b);
    expect(await waitById(db, waitKey(b))).toBeUndefined();
  });
});
