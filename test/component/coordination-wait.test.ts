/**
 * The whole coordination wait as one activity (ops/vnflcm/change-vnfpkg/coordination-wait.ts),
 * run in the SDK's mock activity context against the reference EM on 127.0.0.1: it heartbeats
 * the Location, a retry resumes from it without a second POST, and a cancel or the timeout
 * cancels the coordination on the EM; a worker shutting down does not.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { ActivityCancellationDetails, ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { cancelCoordination, getCoordination, postCoordination, type CoordTarget } from '../../coord/client';
import { awaitDecision, type CoordExchanges } from '../../ops/vnflcm/change-vnfpkg/coordination-wait';
import { startEm, type Em } from '../../em/server';
import type { LcmCoord } from '../../model/coordination';

let em: Em;
let target: CoordTarget;
let n = 0;
interface Args { vnfcId: string; opOccId: string }

const exchanges: CoordExchanges<Args> = {
  post: (a) => postCoordination(target, {
    vnfInstanceId: 'vnf-1', vnfLcmOpOccId: a.opOccId, lcmOperationType: 'CHANGE_VNFPKG',
    coordinationActionName: 'prv.tacker_organization.coordination_test', inputParams: { vnfcInstanceId: a.vnfcId },
    _links: { vnfLcmOpOcc: { href: `http://127.0.0.1:9890/vnflcm/v2/vnf_lcm_op_occs/${a.opOccId}` }, vnfInstance: { href: 'http://127.0.0.1:9890/vnflcm/v2/vnf_instances/vnf-1' } },
  }),
  get: (a) => getCoordination(target, a.location),
  cancel: (a) => cancelCoordination(target, a.location),
};
const fresh = (): Args => ({ vnfcId: 'VDU1-0', opOccId: `op-${++n}` });
const mine = (a: Args) => em.coordinations().filter((c) => c.request.vnfLcmOpOccId === a.opOccId);
const locationsOf = (env: MockActivityEnvironment) => {
  const seen: string[] = [];
  env.on('heartbeat', (d: { location?: string }) => { if (d?.location) seen.push(d.location); });
  return seen;
};

/** A wait started on a hanging EM, once its Location is in the heartbeat. */
async function parkedWait(a: Args) {
  em.setBehaviour({ mode: 'hang', retryAfter: '1' });
  const env = new MockActivityEnvironment();
  const seen = locationsOf(env);
  const running = env.run(awaitDecision, exchanges, a, Date.now() + 60_000, 60_000).catch((e) => e);
  while (!seen.length) await new Promise((r) => setTimeout(r, 50));
  return { env, running, location: seen[0] };
}

beforeAll(async () => {
  em = await startEm({});
  target = { endpoint: em.url };
});
afterAll(() => em.close());

test('polls the Location after each Retry-After until decided, heartbeating the Location', async () => {
  em.setBehaviour({ mode: 'async', result: 'CONTINUE', polls: 2, retryAfter: '0' });
  const a = fresh();
  const env = new MockActivityEnvironment();
  const seen = locationsOf(env);
  const coord = (await env.run(awaitDecision, exchanges, a, Date.now() + 30_000, 30_000)) as LcmCoord;
  expect(coord.coordinationResult).toBe('CONTINUE');
  expect(mine(a)).toMatchObject([{ posts: 1, gets: 3, cancelled: false }]);
  expect(new Set(seen).size).toBe(1);
});

test('a retry resumes from the heartbeated Location: no second POST', async () => {
  const a = fresh();
  const first = await parkedWait(a);
  // the retry, as after a worker crash; the first attempt is then cancelled, which also ends it on the EM
  const retry = new MockActivityEnvironment({ heartbeatDetails: { location: first.location }, attempt: 2 });
  const resumed = retry.run(awaitDecision, exchanges, a, Date.now() + 60_000, 60_000) as Promise<LcmCoord>;
  await new Promise((r) => setTimeout(r, 1500));
  expect(em.decidePending('CONTINUE')).toBe(1);
  expect((await resumed).coordinationResult).toBe('CONTINUE');
  expect(mine(a)).toMatchObject([{ posts: 1, result: 'CONTINUE' }]);
  first.env.cancel();
  expect(await first.running).toBeDefined();
});

test('an operator cancel ends it with CancelledFailure and cancels the coordination on the EM', async () => {
  const a = fresh();
  const { env, running } = await parkedWait(a);
  env.cancel();
  expect(await running).toBeInstanceOf(CancelledFailure);
  expect(mine(a)).toMatchObject([{ posts: 1, cancelled: true }]);
});

test('a worker shutting down keeps the coordination on the EM, for the retry on another worker', async () => {
  const a = fresh();
  const { env, running } = await parkedWait(a);
  env.cancel('WORKER_SHUTDOWN', new ActivityCancellationDetails({ workerShutdown: true }));
  expect(await running).toBeInstanceOf(CancelledFailure);
  expect(mine(a)).toMatchObject([{ posts: 1, cancelled: false, state: 'PENDING' }]);
});

test('the timeout: CoordinationTimeout (not retryable) and the coordination cancelled on the EM', async () => {
  em.setBehaviour({ mode: 'hang', retryAfter: '1' });
  const a = fresh();
  const err = await new MockActivityEnvironment().run(awaitDecision, exchanges, a, Date.now() + 1500, 1500).catch((e) => e);
  expect(err).toBeInstanceOf(ApplicationFailure);
  expect(err).toMatchObject({ type: 'CoordinationTimeout', nonRetryable: true, message: 'coordination of VNFC VDU1-0 did not finish within 1.5 s' });
  expect(mine(a)).toMatchObject([{ posts: 1, cancelled: true }]);
});
