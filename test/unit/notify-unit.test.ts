/**
 * The pure parts of LCM notifications (HARNESS=off): filter matching
 * (SOL003 LifecycleChangeNotificationsFilter), notificationStatus, the
 * payloads of v1 and v2 subscriptions, the request schema's refusals, and
 * the OpenAPI paths of the subscriptions.
 */
import { openApiDocument } from '../../api/openapi';
import { parse } from '../../common/validate';
import { LccnSubscriptionRequest } from '../../model/subscriptions';
import { matchesFilter, type InstanceFacts } from '../../notify/etsi/filter';
import { lcmPayload, notificationStatusOf } from '../../notify/etsi/payloads';

const inst: InstanceFacts = { id: 'i1', vnfInstanceName: 'web', vnfdId: 'd1', vnfProvider: 'Company', vnfProductName: 'Sample', vnfSoftwareVersion: '1.0', vnfdVersion: '1.0' };
const op = (state: string) => ({ notificationType: 'VnfLcmOperationOccurrenceNotification' as const, instance: inst, operation: 'INSTANTIATE', operationState: state });
const created = { notificationType: 'VnfIdentifierCreationNotification' as const, instance: inst };

test('filters: every attribute given must match, any entry of a list may', () => {
  expect(matchesFilter(undefined, op('STARTING'))).toBe(true);
  expect(matchesFilter({ notificationTypes: ['VnfIdentifierCreationNotification'] }, op('STARTING'))).toBe(false);
  expect(matchesFilter({ notificationTypes: ['VnfIdentifierCreationNotification'] }, created)).toBe(true);
  expect(matchesFilter({ operationTypes: ['TERMINATE'] }, op('STARTING'))).toBe(false);
  expect(matchesFilter({ operationTypes: ['TERMINATE', 'INSTANTIATE'], operationStates: ['COMPLETED'] }, op('COMPLETED'))).toBe(true);
  expect(matchesFilter({ operationStates: ['COMPLETED'] }, op('PROCESSING'))).toBe(false);
  // operationTypes / operationStates are about op occ notifications only
  expect(matchesFilter({ operationTypes: ['TERMINATE'] }, created)).toBe(true);
  const f = (vnfInstanceSubscriptionFilter: any) => matchesFilter({ vnfInstanceSubscriptionFilter }, created);
  expect([f({ vnfdIds: ['d1'] }), f({ vnfdIds: ['d2'] }), f({ vnfInstanceIds: ['i2', 'i1'] }), f({ vnfInstanceNames: ['db'] })]).toEqual([true, false, true, false]);
  expect(f({ vnfProductsFromProviders: [{ vnfProvider: 'Company' }] })).toBe(true);
  expect(f({ vnfProductsFromProviders: [{ vnfProvider: 'Other' }, { vnfProvider: 'Company', vnfProducts: [{ vnfProductName: 'Sample', versions: [{ vnfSoftwareVersion: '1.0', vnfdVersions: ['1.0'] }] }] }] })).toBe(true);
  expect(f({ vnfProductsFromProviders: [{ vnfProvider: 'Company', vnfProducts: [{ vnfProductName: 'Sample', versions: [{ vnfSoftwareVersion: '2.0' }] }] }] })).toBe(false);
  expect(f({ vnfdIds: ['d1'], vnfInstanceNames: ['db'] })).toBe(false);
});

test('notificationStatus: START for STARTING only, RESULT for every later state (SOL003)', () => {
  expect(['STARTING', 'PROCESSING', 'FAILED_TEMP', 'ROLLING_BACK', 'COMPLETED', 'FAILED', 'ROLLED_BACK'].map(notificationStatusOf))
    .toEqual(['START', 'RESULT', 'RESULT', 'RESULT', 'RESULT', 'RESULT', 'RESULT']);
});

test('payloads: v1 without verbosity, v2 SHORT without resource changes, absolute links, the error on FAILED_TEMP', () => {
  const row: any = {
    id: 'op1', operation: 'INSTANTIATE', isAutomaticInvocation: false, error: { status: 500, detail: 'boom' }, changedInfo: null,
    resourceChanges: { affectedVnfcs: [{ id: 'c1', changeType: 'ADDED' }], affectedVirtualLinks: [] },
  };
  const e = (state: string) => ({ notificationType: 'VnfLcmOperationOccurrenceNotification' as const, vnfInstanceId: 'i1', op: row, state });
  const at = new Date('2026-01-01T00:00:00Z');
  const v1 = lcmPayload('n1', { id: 's1', apiVersion: 'v1', verbosity: null }, e('FAILED_TEMP'), 'http://api:9890', at);
  expect(v1).toEqual({
    id: 'n1', notificationType: 'VnfLcmOperationOccurrenceNotification', subscriptionId: 's1', timeStamp: '2026-01-01T00:00:00.000Z',
    notificationStatus: 'RESULT', operationState: 'FAILED_TEMP', vnfInstanceId: 'i1', operation: 'INSTANTIATE', isAutomaticInvocation: false,
    vnfLcmOpOccId: 'op1', affectedVnfcs: [{ id: 'c1', changeType: 'ADDED' }], error: { status: 500, detail: 'boom' },
    _links: {
      vnfInstance: { href: 'http://api:9890/vnflcm/v1/vnf_instances/i1' }, subscription: { href: 'http://api:9890/vnflcm/v1/subscriptions/s1' },
      vnfLcmOpOcc: { href: 'http://api:9890/vnflcm/v1/vnf_lcm_op_occs/op1' },
    },
  });
  const short = lcmPayload('n2', { id: 's2', apiVersion: 'v2', verbosity: 'SHORT' }, e('COMPLETED'), 'http://api:9890', at);
  expect(short).toMatchObject({ verbosity: 'SHORT', notificationStatus: 'RESULT', _links: { vnfLcmOpOcc: { href: 'http://api:9890/vnflcm/v2/vnf_lcm_op_occs/op1' } } });
  expect(short.affectedVnfcs).toBeUndefined();
  expect(short.error).toBeUndefined();
  expect(lcmPayload('n3', { id: 's2', apiVersion: 'v2', verbosity: 'FULL' }, e('STARTING'), 'http://api:9890', at)).not.toHaveProperty('affectedVnfcs');
  const deletion = lcmPayload('n4', { id: 's1', apiVersion: 'v1', verbosity: null }, { notificationType: 'VnfIdentifierDeletionNotification', vnfInstanceId: 'i1' }, 'http://api:9890', at);
  expect(Object.keys(deletion).sort()).toEqual(['_links', 'id', 'notificationType', 'subscriptionId', 'timeStamp', 'vnfInstanceId']);
});

test('the request schema names the field it refuses', () => {
  const bad = (body: unknown) => { try { parse(LccnSubscriptionRequest, body); return ''; } catch (e) { return (e as Error).message; } };
  expect(bad({})).toMatch(/callbackUri/);
  expect(bad({ callbackUri: 'http://x', filter: { notificationTypes: ['VnfIdentifierCreationNotification'], operationStates: ['COMPLETED'] } }))
    .toMatch(/filter\.operationTypes: operationTypes and operationStates filter VnfLcmOperationOccurrenceNotification only/);
  expect(bad({ callbackUri: 'http://x', filter: { vnfInstanceSubscriptionFilter: { vnfdIds: ['a'], vnfProductsFromProviders: [{ vnfProvider: 'p' }] } } }))
    .toMatch(/vnfdIds and vnfProductsFromProviders are alternatives/);
  expect(bad({ callbackUri: 'http://x', authentication: { authType: ['DIGEST'] } })).toMatch(/authentication\.authType\[0\]/);
  expect(bad({ callbackUri: 'http://x', authentication: { authType: ['BASIC'], paramsBasic: { userName: 'u', password: 'p' } } })).toBe('');
});

test('OpenAPI: the subscriptions of both versions, from the same schemas; the password is write-only', () => {
  const doc = openApiDocument() as any;
  for (const v of ['v1', 'v2']) {
    expect(doc.paths[`/vnflcm/${v}/subscriptions`].post.requestBody).toBeDefined();
    expect(doc.paths[`/vnflcm/${v}/subscriptions/{subscriptionId}`].delete).toBeDefined();
    expect(doc.paths[`/vnflcm/${v}/subscriptions/{subscriptionId}/deliveries`].get).toBeDefined();
  }
  expect(JSON.stringify(doc.components.schemas.LccnSubscriptionRequest)).toMatch(/"password":\{[^}]*"writeOnly":true/);
});
