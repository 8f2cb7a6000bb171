/**
 * Heat stack for instantiating a VNF with the OpenStack infra driver: pure
 * functions from the VNFD model, the package files and the request to the
 * template, nested files and `nfv` parameter of the stack.
 */
import path from 'node:path';
import type { Vnfd, VnfdFlavour } from '../../model/vnfd';
import { buildFromBaseHot, findBaseHot, type BaseHot } from './base-hot';
import { buildGeneratedHot } from './generated-hot';
import { parseHot } from './heat-yaml';
import type { VnfcLayout } from './layout';
import { checkTemplates } from './resource-policy';
import { DEFAULT_HEAT_RESOURCE_TYPES } from '../../common/settings/heat-resource-types';
import type { InstantiateInput, StackSpec } from './types';

export type { InstantiateInput, StackSpec } from './types';
export { vduCountsForLevel, vduCountsForScaleLevels, scaleStatusForLevel, effectiveLevelId } from './levels';
export { baseHotPortNames, findBaseHot } from './base-hot';
export { TemplatePolicyRefused, type TemplateViolation } from './resource-policy';
export { DEFAULT_HEAT_RESOURCE_TYPES, resourceTypesFromSetting } from '../../common/settings/heat-resource-types';
export type { NfvParam } from './nfv-param';
export { besideLayout, currentLayout, layoutOf, mergeLayouts, resizeLayout, vnfcIndex, type VnfcLayout } from './layout';

/**
 * The stack for the VNFCs of `layout` (indices per VDU, layout.ts): from the package's BaseHOT/<flavourId>/
 * when present (Tacker v2 StandardUserData behaviour), else generated from the
 * VNFD. Throws an Error with a user-facing message when the request or the
 * package can't make a valid stack (e.g. an external CP with no network), and
 * TemplatePolicyRefused when a template has a resource type outside `allowedTypes`.
 */
export function buildStack(vnfd: Vnfd, flavour: VnfdFlavour, files: Record<string, Buffer>, input: InstantiateInput, layout: VnfcLayout,
  allowedTypes: Iterable<string> = DEFAULT_HEAT_RESOURCE_TYPES): StackSpec {
  const hot = findBaseHot(files, flavour.flavourId);
  if (!hot) {
    const spec = buildGeneratedHot(vnfd, flavour, input, layout);
    const generated = 'the template generated from the VNFD';
    checkTemplates(templatesOf({ file: generated, template: spec.template }, spec.files, (name) => `${generated}, ${name}`), Object.keys(spec.files), allowedTypes);
    return spec;
  }
  checkTemplates(baseHotTemplates(hot), Object.keys(hot.nested), allowedTypes);
  return buildFromBaseHot(flavour, hot, input, layout);
}

/** The flavour's BaseHOT (top and nested files, as the package has them) against `allowedTypes`: TemplatePolicyRefused names what is not allowed. */
export function checkBaseHotTypes(files: Record<string, Buffer>, flavourId: string, allowedTypes: Iterable<string>): void {
  const hot = findBaseHot(files, flavourId);
  if (hot) checkTemplates(baseHotTemplates(hot), Object.keys(hot.nested), allowedTypes);
}

const baseHotTemplates = (hot: BaseHot) => templatesOf(
  { file: hot.topPath, template: parseHot(hot.topText, hot.topPath) }, hot.nested, (name) => `${path.posix.dirname(hot.topPath)}/nested/${name}`,
);

/** A stack's templates as the resource-type policy names them: the top one and each nested file. */
function templatesOf(top: { file: string; template: unknown }, nested: Record<string, string>, fileOf: (name: string) => string): { file: string; template: unknown }[] {
  return [top, ...Object.entries(nested).map(([name, text]) => ({ file: fileOf(name), template: parseHot(text, fileOf(name)) }))];
}
