/** VNFC layouts by index (infra/hot/layout.ts): what stack updates keep, add and remove. */
import { besideLayout, currentLayout, layoutOf, mergeLayouts, resizeLayout, vnfcIndex } from '../../infra/hot';
import { blueGreenLayout } from '../../ops/vnflcm/change-vnfpkg/activities';
import type { InstantiatedVnfInfo } from '../../infra/vnf-info';

const info = (...names: [string, string][]) => ({
  vnfcResourceInfo: names.map(([vduId, name], i) => ({ id: `c${i}`, vduId, metadata: { heatResourceName: name } })),
}) as unknown as InstantiatedVnfInfo;

test('counts are indices 0..n-1; an invalid count is left for the builder to name', () => {
  expect(layoutOf({ VDU1: 2, VDU2: 0, VDU3: -1 })).toEqual({ VDU1: [0, 1], VDU2: [] });
});

test('the current layout reads the resource names; group members count by position', () => {
  expect(vnfcIndex('VDU1-12', 'VDU1')).toBe(12);
  expect(vnfcIndex('VDU10-1', 'VDU1')).toBeUndefined();
  expect(vnfcIndex('abc123xyz', 'VDU1')).toBeUndefined();
  expect(currentLayout(info(['VDU1', 'VDU1-3'], ['VDU1', 'VDU1-2'], ['VDU2', 'x7fq'], ['VDU2', 'k2pz']), ['VDU1', 'VDU2', 'VDU3']))
    .toEqual({ VDU1: [2, 3], VDU2: [0, 1], VDU3: [] });
});

test('resize keeps the current indices, adds above the highest, drops the highest first', () => {
  expect(resizeLayout({ VDU1: [2, 3] }, { VDU1: 4 })).toEqual({ VDU1: [2, 3, 4, 5] });
  expect(resizeLayout({ VDU1: [2, 3, 4] }, { VDU1: 1 })).toEqual({ VDU1: [2] });
  expect(resizeLayout({}, { VDU1: 2 })).toEqual({ VDU1: [0, 1] });
  expect(resizeLayout({ VDU1: [0, 1] }, { VDU1: 2 })).toEqual({ VDU1: [0, 1] });
});

test('BlueGreen: as many new VNFCs above the old per targeted VDU, the other VDUs left alone', () => {
  expect(besideLayout({ VDU1: [0, 1], VDU2: [] }, { VDU1: 2, VDU2: 1 })).toEqual({ VDU1: [2, 3], VDU2: [0] });
  expect(mergeLayouts({ VDU1: [0, 1] }, { VDU1: [3, 2] }, { VDU2: [0] })).toEqual({ VDU1: [0, 1, 2, 3], VDU2: [0] });
  const plan = blueGreenLayout(info(['VDU1', 'VDU1-0'], ['VDU1', 'VDU1-1'], ['VDU2', 'VDU2-0']), ['VDU1', 'VDU2'], ['VDU1']);
  expect(plan).toEqual({ old: { VDU1: [0, 1] }, new: { VDU1: [2, 3] }, others: { VDU2: [0] } });
});
