/**
 * How ETSI resources are represented (issue 26): SOL013 §5.3 attribute
 * selectors on list items, and §4.4 absent-not-null, which leaves the
 * user's free-form KeyValuePairs and a modification's nulls as they are.
 */
import { HttpError } from '../../common/http-error';
import { attributeSelector } from '../../api/routes/selectors';
import { absentNotNull } from '../../api/views';
import { conformant, VnfLcmOpOccSchema } from '../../api/schemas/etsi-resources';

const rules = { optionalComplex: ['checksum', 'softwareImages', 'userDefinedData', 'onboardingFailureDetails'], defaultExcluded: ['softwareImages', 'userDefinedData', 'checksum'] };
const item = {
  id: 'p1', onboardingState: 'ONBOARDED', checksum: { algorithm: 'SHA-256', hash: 'h' },
  softwareImages: [{ id: 'i1', name: 'n', userMetadata: {} }], userDefinedData: { k: 'v' }, _links: { self: { href: 'x' } },
};
const keys = (q: Record<string, string>) => Object.keys(attributeSelector(q, rules)(item)).sort();
const refusal = (q: Record<string, string>) => {
  try {
    attributeSelector(q, rules);
  } catch (e) {
    if (e instanceof HttpError && e.status === 400) return e.message;
    throw e;
  }
  throw new Error('not refused');
};

test('selectors: the default leaves out the default-excluded; all_fields keeps all; fields and exclude_fields pick among the optional complex attributes', () => {
  expect(keys({})).toEqual(['_links', 'id', 'onboardingState']);
  expect(keys({ exclude_default: '' })).toEqual(['_links', 'id', 'onboardingState']);
  expect(keys({ all_fields: '' })).toEqual(['_links', 'checksum', 'id', 'onboardingState', 'softwareImages', 'userDefinedData']);
  expect(keys({ fields: 'softwareImages' })).toEqual(['_links', 'id', 'onboardingState', 'softwareImages']);
  expect(keys({ fields: 'checksum', exclude_default: '' })).toEqual(['_links', 'checksum', 'id', 'onboardingState']);
  expect(keys({ exclude_fields: 'userDefinedData' })).toEqual(['_links', 'checksum', 'id', 'onboardingState', 'softwareImages']);
  // a path reaches into arrays of objects; the item itself is left as it was
  expect(attributeSelector({ exclude_fields: 'softwareImages/userMetadata' }, rules)(item).softwareImages).toEqual([{ id: 'i1', name: 'n' }]);
  expect(item.softwareImages[0]).toHaveProperty('userMetadata');
});

test('selectors: fields=a/b keeps of a only the complex sub-attributes named (its simple ones stay); a named whole keeps all', () => {
  const inst = {
    id: 'v1', instantiatedVnfInfo: { flavourId: 'simple', vnfState: 'STARTED', vnfcResourceInfo: [{ id: 'c1', computeResource: { resourceId: 's1' }, metadata: { m: 1 } }], extCpInfo: [{ id: 'cp' }], scaleStatus: [{ aspectId: 'a' }] },
    vimConnectionInfo: { v: { vimType: 'openstack' } },
  };
  const r = { optionalComplex: ['instantiatedVnfInfo', 'vimConnectionInfo'], defaultExcluded: ['instantiatedVnfInfo', 'vimConnectionInfo'] };
  const shaped = attributeSelector({ fields: 'instantiatedVnfInfo/vnfcResourceInfo/computeResource' }, r)(inst) as any;
  expect(shaped.vimConnectionInfo).toBeUndefined();
  expect(shaped.instantiatedVnfInfo).toEqual({ flavourId: 'simple', vnfState: 'STARTED', vnfcResourceInfo: [{ id: 'c1', computeResource: { resourceId: 's1' } }] });
  expect(Object.keys((attributeSelector({ fields: 'instantiatedVnfInfo/extCpInfo,instantiatedVnfInfo/scaleStatus' }, r)(inst) as any).instantiatedVnfInfo).sort())
    .toEqual(['extCpInfo', 'flavourId', 'scaleStatus', 'vnfState']);
  expect((attributeSelector({ fields: 'instantiatedVnfInfo,instantiatedVnfInfo/extCpInfo' }, r)(inst) as any).instantiatedVnfInfo).toEqual(inst.instantiatedVnfInfo);
  expect(inst.instantiatedVnfInfo.vnfcResourceInfo[0]).toHaveProperty('metadata');
});

test('selectors: combinations SOL013 forbids, values where none belongs, mandatory attributes and malformed paths are a 400 naming them', () => {
  expect(refusal({ all_fields: '', fields: 'checksum' })).toMatch(/all_fields cannot be combined with fields/);
  expect(refusal({ fields: 'checksum', exclude_fields: 'userDefinedData' })).toMatch(/fields and exclude_fields cannot be combined/);
  expect(refusal({ all_fields: 'yes' })).toMatch(/all_fields takes no value/);
  expect(refusal({ exclude_fields: '_links' })).toMatch(/exclude_fields: _links cannot be excluded/);
  expect(refusal({ fields: 'a,,b' })).toMatch(/^fields: expected a comma-separated list of attribute paths/);
  expect(refusal({ fields: '../x' })).toMatch(/^fields:/);
});

test('absent, not null: nulls go at every level but inside free-form KeyValuePairs and a modification\'s changes', () => {
  const shown = absentNotNull({
    id: 'i', vnfInstanceDescription: null, grantId: undefined,
    instantiatedVnfInfo: { vnfcResourceInfo: [{ id: 'c', storageResourceIds: null }] },
    metadata: { removedByUser: null }, changedInfo: { vnfInstanceDescription: null },
  });
  expect(shown).toEqual({ id: 'i', instantiatedVnfInfo: { vnfcResourceInfo: [{ id: 'c' }] }, metadata: { removedByUser: null }, changedInfo: { vnfInstanceDescription: null } });
});

describe('the resource schemas (ETSI_CONFORMANCE_CHECK)', () => {
  const op = {
    id: 'o1', operationState: 'FAILED_TEMP', stateEnteredTime: '2026-12-05T20:00:00.000Z', startTime: '2026-12-05T19:59:00.000Z', vnfInstanceId: 'i1',
    operation: 'INSTANTIATE', isAutomaticInvocation: false, isCancelPending: false, error: { status: 500, detail: 'step failed' },
    operationParams: { flavourId: 'simple', additionalParams: { k: null } },
    _links: { self: { href: 'http://127.0.0.1:9890/vnflcm/v1/vnf_lcm_op_occs/o1' }, vnfInstance: { href: 'http://127.0.0.1:9890/vnflcm/v1/vnf_instances/i1' } },
  };
  const check = (v: object) => conformant('VnfLcmOpOcc', VnfLcmOpOccSchema, v, new Set(['operationParams']));
  beforeAll(() => { process.env.ETSI_CONFORMANCE_CHECK = '1'; });
  afterAll(() => { delete process.env.ETSI_CONFORMANCE_CHECK; });
  test('a conformant op occ passes (nulls inside operationParams are the user\'s)', () => {
    expect(check(op)).toBe(op);
  });
  test('a null, a missing mandatory attribute, a wrong type, a relative link or FAILED_TEMP without error is a 500 naming it', () => {
    expect(() => check({ ...op, grantId: null })).toThrow(/\/grantId: null/);
    const { isCancelPending: _, ...missing } = op;
    expect(() => check(missing)).toThrow(/isCancelPending/);
    expect(() => check({ ...op, startTime: 'yesterday' })).toThrow(/startTime/);
    expect(() => check({ ...op, _links: { ...op._links, self: { href: '/vnflcm/v1/vnf_lcm_op_occs/o1' } } })).toThrow(/_links\.self\.href/);
    const { error: __, ...noError } = op;
    expect(() => check(noError)).toThrow(/a FAILED_TEMP op occ says why/);
  });
});
