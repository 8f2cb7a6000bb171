/**
 * Heat stack for instantiating a VNF with the OpenStack infra driver: pure
 * functions from the VNFD model, the package files and the request to the
 * template, nested files and `nfv` parameter of the stack.
 */
import type { Vnfd, VnfdFlavour } from '../../vnfpkg/vnfd-model';
import { buildFromBaseHot, findBaseHot } from './base-hot';
import { buildGeneratedHot } from './generated-hot';
import type { VnfcLayout } from './layout';
import type { InstantiateInput, StackSpec } from './types';

export type { InstantiateInput, StackSpec } from './types';
export { vduCountsForLevel, vduCountsForScaleLevels, scaleStatusForLevel, effectiveLevelId } from './levels';
export { baseHotPortNames, findBaseHot } from './base-hot';
export type { NfvParam } from './nfv-param';
export { besideLayout, currentLayout, layoutOf, mergeLayouts, resizeLayout, vnfcIndex, type VnfcLayout } from './layout';

/**
 * The stack for the VNFCs of `layout` (indices per VDU, layout.ts): from the package's BaseHOT/<flavourId>/
 * when present (Tacker v2 StandardUserData behaviour), else generated from the
 * VNFD. Throws an Error with a user-facing message when the request or the
 * package can't make a valid stack (e.g. an external CP with no network).
 */
export function buildStack(vnfd: Vnfd, flavour: VnfdFlavour, files: Record<string, Buffer>, input: InstantiateInput, layout: VnfcLayout): StackSpec {
  const hot = findBaseHot(files, flavour.flavourId);
  return hot ? buildFromBaseHot(flavour, hot, input, layout) : buildGeneratedHot(vnfd, flavour, input, layout);
}
