/** The external connectivity after a ChangeExtVnfConnectivityRequest (infra/hot/ext-links.ts), pure. */
import { buildStack, layoutOf, type InstantiateInput } from '../../infra/hot';
import { mergeExtVirtualLinks, withExtConnectivity } from '../../infra/hot/ext-links';
import type { Vnfd } from '../../model/vnfd';
import { v2Flavour } from '../support/v2-flavour';

type Links = NonNullable<InstantiateInput['extVirtualLinks']>;
const current: Links = [
  { id: 'a', resourceId: 'net-a', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1', cpConfig: { c: { cpProtocolData: [] } } }] },
  { id: 'b', resourceId: 'net-b', extCps: [{ cpdId: 'X_CP' }] },
];

test('a named CP leaves its VL for the request\'s; the others stay where they were', () => {
  expect(mergeExtVirtualLinks(current, [{ id: 'c', resourceId: 'net-c', extCps: [{ cpdId: 'VDU1_CP1' }] }])).toEqual([
    { id: 'a', resourceId: 'net-a', extCps: [{ cpdId: 'VDU2_CP1', cpConfig: { c: { cpProtocolData: [] } } }] },
    { id: 'b', resourceId: 'net-b', extCps: [{ cpdId: 'X_CP' }] },
    { id: 'c', resourceId: 'net-c', extCps: [{ cpdId: 'VDU1_CP1' }] },
  ]);
});

test('a known VL takes the request\'s network (all its CPs move) and its named CPs\' new config; an emptied VL goes', () => {
  const merged = mergeExtVirtualLinks(current, [{ id: 'a', resourceId: 'net-a2', extCps: [{ cpdId: 'VDU2_CP1' }, { cpdId: 'X_CP' }] }]);
  expect(merged).toEqual([{ id: 'a', resourceId: 'net-a2', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }, { cpdId: 'X_CP' }] }]);
});

test('idempotent: the same request over its own result changes nothing (a retried write is safe)', () => {
  const req: Links = [{ id: 'c', resourceId: 'net-c', extCps: [{ cpdId: 'VDU2_CP1' }] }, { id: 'a', resourceId: 'net-a', extCps: [{ cpdId: 'X_CP' }] }];
  const once = mergeExtVirtualLinks(current, req);
  expect(mergeExtVirtualLinks(once, req)).toEqual(once);
});

test('the stack takes the new network on the moved CP only', () => {
  const flavour = v2Flavour();
  const vnfd = { vnfdId: 'v', flavours: { simple: flavour } } as unknown as Vnfd;
  const input: InstantiateInput = { flavourId: 'simple', extVirtualLinks: [{ id: 'a', resourceId: 'net-a', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }] };
  const moved = withExtConnectivity(input, [{ id: 'c', resourceId: 'net-c', extCps: [{ cpdId: 'VDU2_CP1' }] }]);
  const nfv = (i: InstantiateInput) => (buildStack(vnfd, flavour, {}, i, layoutOf({ VDU1: 1, VDU2: 1 })).parameters.nfv as { CP: Record<string, { network?: string }> }).CP;
  expect([nfv(input)['VDU1_CP1-0'].network, nfv(input)['VDU2_CP1-0'].network]).toEqual(['net-a', 'net-a']);
  expect([nfv(moved)['VDU1_CP1-0'].network, nfv(moved)['VDU2_CP1-0'].network]).toEqual(['net-a', 'net-c']);
});
