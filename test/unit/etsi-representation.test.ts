/**
 * How ETSI resources are represented (issue 26): SOL013 §5.3 attribute
 * selectors on list items, and §4.4 absent-not-null, which leaves the
 * user's free-form KeyValuePairs and a modification's nulls as they are.
 */
import { HttpError } from '../../common/http-error';
import { attributeSelector } from '../../api/routes/selectors';
import { absentNotNull } from '../../api/views';

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
