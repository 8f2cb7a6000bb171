/**
 * Durable delivery of LCM notifications to a real receiver on loopback (the
 * reference EM): an instantiate's START and RESULTs in order with stable
 * ids, to the subscriptions whose filter matches; a receiver that refuses a
 * while; the worker killed -9 while notifications are pending; a delivery
 * past NOTIFICATION_DEADLINE_S, FAILED and shown to the owner.
 */
import path from 'node:path';
import { startEm, type Em } from '../../em/server';
import { sampleVariant } from '../../samples/variant';
import { readState } from '../harness/state';
import { call, eventually, onboard, opIdFrom, temporalClient, waitOpState } from '../support/api';
import { keystoneUser, type TestUser } from '../support/identity';
import { deduped, received, waitLines } from '../support/notifications';
import { killWorker, restartWorker } from '../support/worker-control';

const SAMPLE = path.resolve(__dirname, '../../samples/two_vdu_vnf');
const EXT_NET = 'f0c82461-36b5-4d86-8322-b0bc19cda65f';
const instantiateBody = {
  flavourId: 'simple', instantiationLevelId: 'instantiation_level_1',
  extVirtualLinks: [{ id: 'net0', resourceId: EXT_NET, extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }],
};
const OP = (o: string) => [`${o} START STARTING`, `${o} RESULT PROCESSING`, `${o} RESULT COMPLETED`];

let user: TestUser;
let H: Record<string, string>;
let vnfdId: string;
let em: Em;

const subscribe = async (filter: unknown, v = 'v1', extra: Record<string, unknown> = {}) => {
  const r = await call('POST', `/vnflcm/${v}/subscriptions`, { callbackUri: `${em.url}/notifications`, ...(filter ? { filter } : {}), ...extra }, H);
  expect(r.status).toBe(201);
  return r.body.id as string;
};
const newInstance = async () => (await call('POST', '/vnflcm/v1/vnf_instances', { vnfdId }, H)).body.id as string;
const instantiate = async (id: string, v = 'v1') => {
  const r = await call('POST', `/vnflcm/${v}/vnf_instances/${id}/instantiate`, instantiateBody, H);
  expect(r.status).toBe(202);
  return opIdFrom(r);
};
const deliveries = async (sub: string, state = '') => (await call('GET', `/vnflcm/v1/subscriptions/${sub}/deliveries${state ? `?state=${state}` : ''}`, undefined, H)).body as any[];

beforeAll(async () => {
  const runId = Date.now().toString(36);
  user = await keystoneUser(`notify-${runId}`, `notify-user-${runId}`, 'member');
  H = await user.headers();
  const pkg = await onboard(sampleVariant(SAMPLE).zip, H);
  vnfdId = pkg.vnfdId;
  em = await startEm();
}, 180_000);
afterAll(() => em?.close());
afterEach(() => em.setNotificationBehaviour({}));

test('an instantiate and a terminate: START then RESULTs, in order, stable ids, absolute links, matching filters only', async () => {
  const id = await newInstance();
  const full = await subscribe({ vnfInstanceSubscriptionFilter: { vnfInstanceIds: [id] }, operationTypes: ['INSTANTIATE'] }, 'v2');
  const completed = await subscribe({ vnfInstanceSubscriptionFilter: { vnfInstanceIds: [id] }, operationStates: ['COMPLETED'] });
  const terminations = await subscribe({ vnfInstanceSubscriptionFilter: { vnfInstanceIds: [id] }, notificationTypes: ['VnfLcmOperationOccurrenceNotification'], operationTypes: ['TERMINATE'] });
  const opId = await instantiate(id, 'v2');
  expect((await waitOpState(opId, ['COMPLETED', 'FAILED_TEMP'], 120_000, 'v2')).operationState).toBe('COMPLETED');
  expect(await waitLines(em, full, 3)).toEqual(OP('INSTANTIATE'));
  const [start, processing, done] = deduped(em, full);
  expect(new Set([start.id, processing.id, done.id]).size).toBe(3);
  const base = `${readState().apiUrl}/vnflcm/v2`;
  expect(done).toMatchObject({
    subscriptionId: full, vnfInstanceId: id, vnfLcmOpOccId: opId, operation: 'INSTANTIATE', isAutomaticInvocation: false, verbosity: 'FULL',
    _links: { vnfInstance: { href: `${base}/vnf_instances/${id}` }, subscription: { href: `${base}/subscriptions/${full}` }, vnfLcmOpOcc: { href: `${base}/vnf_lcm_op_occs/${opId}` } },
  });
  const occ = (await call('GET', `/vnflcm/v2/vnf_lcm_op_occs/${opId}`, undefined, H)).body;
  if (occ.resourceChanges?.affectedVnfcs?.length) expect(done.affectedVnfcs).toEqual(occ.resourceChanges.affectedVnfcs);
  expect(start.affectedVnfcs).toBeUndefined();
  expect(await waitLines(em, completed, 1)).toEqual(['INSTANTIATE RESULT COMPLETED']);

  const t = await call('POST', `/vnflcm/v1/vnf_instances/${id}/terminate`, { terminationType: 'FORCEFUL' }, H);
  expect((await waitOpState(opIdFrom(t), ['COMPLETED', 'FAILED_TEMP'], 120_000)).operationState).toBe('COMPLETED');
  expect(await waitLines(em, terminations, 3)).toEqual(OP('TERMINATE'));
  expect(await waitLines(em, completed, 2)).toEqual(['INSTANTIATE RESULT COMPLETED', 'TERMINATE RESULT COMPLETED']);
  expect(deduped(em, full)).toHaveLength(3); // no TERMINATE for the INSTANTIATE-only subscription
  // every copy a receiver got was delivered once here (nothing refused): no duplicates at all
  for (const s of [full, completed, terminations]) expect(received(em, s).length).toBe(deduped(em, s).length);
  await call('DELETE', `/vnflcm/v1/vnf_instances/${id}`, undefined, H);
}, 300_000);

test('a receiver that refuses three times gets every notification, in order, each id once', async () => {
  const own = await startEm(); // its refusals go to this test's notifications only
  const sub = (await call('POST', '/vnflcm/v1/subscriptions', { callbackUri: `${own.url}/notifications`, filter: { vnfInstanceSubscriptionFilter: { vnfdIds: [vnfdId] } } }, H)).body.id;
  own.setNotificationBehaviour({ refuse: 3, status: 503 });
  const id = await newInstance();
  const opId = await instantiate(id);
  await waitOpState(opId, ['COMPLETED'], 120_000);
  expect(await waitLines(own, sub, 4)).toEqual(['VnfIdentifierCreationNotification', ...OP('INSTANTIATE')]);
  const seen = await deliveries(sub);
  const creation = seen.find((d) => d.notificationType === 'VnfIdentifierCreationNotification');
  expect(creation).toMatchObject({ state: 'DELIVERED', attempts: 4 }); // three 503s, then 204
  expect(received(own, sub).map((n) => n.body.id)).toEqual(deduped(own, sub).map((b) => b.id));
  await call('DELETE', `/vnflcm/v1/subscriptions/${sub}`, undefined, H);
  await call('POST', `/vnflcm/v1/vnf_instances/${id}/terminate`, { terminationType: 'FORCEFUL' }, H);
  await own.close();
}, 300_000);

test('the worker killed -9 while an operation and its notifications are under way loses nothing', async () => {
  const id = await newInstance();
  const sub = await subscribe({ vnfInstanceSubscriptionFilter: { vnfInstanceIds: [id] } });
  em.setNotificationBehaviour({ refuse: -1 }); // nothing gets through for now
  const opId = await instantiate(id);
  await eventually('a refused attempt', async () => ((await deliveries(sub)).some((d) => d.attempts > 0) ? true : undefined), 60_000, 300);
  killWorker();
  em.setNotificationBehaviour({});
  restartWorker();
  expect((await waitOpState(opId, ['COMPLETED', 'FAILED_TEMP'], 180_000)).operationState).toBe('COMPLETED');
  expect(await waitLines(em, sub, 3, 180_000)).toEqual(OP('INSTANTIATE'));
  await eventually('every delivery DELIVERED', async () => ((await deliveries(sub)).every((d) => d.state === 'DELIVERED') ? true : undefined), 60_000, 500);
  // any copy sent twice (a POST the kill cut off before it was recorded) carries the same id
  expect(new Set(received(em, sub).map((n) => n.body.id)).size).toBe(3);
  await call('POST', `/vnflcm/v1/vnf_instances/${id}/terminate`, { terminationType: 'FORCEFUL' }, H);
}, 400_000);

test('a notification not delivered by NOTIFICATION_DEADLINE_S is FAILED, shown to the owner, and the next one still goes', async () => {
  killWorker();
  restartWorker('worker', { NOTIFICATION_DEADLINE_S: '2' });
  try {
    const sub = await subscribe({ vnfInstanceSubscriptionFilter: { vnfdIds: [vnfdId] }, notificationTypes: ['VnfIdentifierCreationNotification', 'VnfIdentifierDeletionNotification'] });
    em.setNotificationBehaviour({ refuse: -1, status: 503 });
    const id = await newInstance();
    const [failed] = await eventually('the creation notification FAILED', async () => {
      const f = await deliveries(sub, 'FAILED');
      return f.length ? f : undefined;
    }, 90_000, 1000);
    expect(failed).toMatchObject({ notificationType: 'VnfIdentifierCreationNotification', state: 'FAILED', notification: { vnfInstanceId: id } });
    expect(failed.attempts).toBeGreaterThan(1);
    expect(failed.lastError).toMatch(/NOTIFICATION_DEADLINE_S \(2 s\) after \d+ attempt\(s\); last: POST http:\/\/127\.0\.0\.1:\d+\/notifications answered 503/);
    em.setNotificationBehaviour({});
    await call('DELETE', `/vnflcm/v1/vnf_instances/${id}`, undefined, H);
    expect(await waitLines(em, sub, 1)).toEqual(['VnfIdentifierDeletionNotification']);
    expect((await deliveries(sub)).map((d) => d.state)).toEqual(['DELIVERED', 'FAILED']);
  } finally {
    killWorker();
    restartWorker();
  }
}, 300_000);

test('an op whose workflow was terminated and that the operator fails: START and RESULT FAILED, from the API', async () => {
  const id = await newInstance();
  const sub = await subscribe({ vnfInstanceSubscriptionFilter: { vnfInstanceIds: [id] }, notificationTypes: ['VnfLcmOperationOccurrenceNotification'] });
  killWorker(); // nothing runs the op: it stays STARTING
  try {
    const opId = await instantiate(id);
    await (await temporalClient()).workflow.getHandle(opId).terminate('an operator in the Web UI');
    const failed = await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${opId}/fail`, undefined, H);
    expect(failed.body.operationState).toBe('FAILED');
  } finally {
    restartWorker();
  }
  expect(await waitLines(em, sub, 2)).toEqual(['INSTANTIATE START STARTING', 'INSTANTIATE RESULT FAILED']);
  expect(deduped(em, sub)[1].error.detail).toMatch(/TERMINATED/);
  await call('DELETE', `/vnflcm/v1/vnf_instances/${id}`, undefined, H);
}, 180_000);
