/**
 * Mode (a): the package brings its own HOT under BaseHOT/<flavourId>/.
 * Follows Tacker v2's StandardUserData: a top-level resource named after a
 * VDU whose type is a nested template becomes one resource per VNFC,
 * "<vduId>-<index>" for each index of the layout, each reading its own nfv.VDU/CP entries. VDUs wrapped in
 * an OS::Heat::AutoScalingGroup (Tacker's kubernetes samples) keep the group;
 * only its capacity follows the requested count.
 */
import type { VnfdFlavour } from '../../model/vnfd';
import { parseHot } from './heat-yaml';
import { buildNfvParam, indexedName, type NfvTarget, vduCpIds, vnfcTargets } from './nfv-param';
import { collectGetParamPaths, isObject, mapGetParamPaths, replaceGetResource } from './template-walk';
import type { VnfcLayout } from './layout';
import type { InstantiateInput, StackSpec } from './types';

export interface BaseHot {
  topPath: string;
  topText: string;
  /** bare file name -> template text, as Heat's `files` wants it. */
  nested: Record<string, string>;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Package file contents may arrive as a Uint8Array (e.g. from the database) rather than a Buffer. */
const text = (content: Uint8Array) => Buffer.from(content).toString('utf8');

/** BaseHOT/<flavourId>/<top>.yaml and BaseHOT/<flavourId>/nested/*.yaml, if the package has them. */
export function findBaseHot(files: Record<string, Buffer>, flavourId: string): BaseHot | undefined {
  const dir = `(?:^|/)BaseHOT/${escapeRegExp(flavourId)}/`;
  const topRe = new RegExp(`${dir}[^/]+\\.ya?ml$`);
  const nestedRe = new RegExp(`${dir}nested/([^/]+\\.ya?ml)$`);
  const paths = Object.keys(files).sort();
  // Tacker takes the first yaml it lists; sorting makes "first" deterministic.
  const topPath = paths.find((p) => topRe.test(p));
  if (!topPath) return undefined;
  const nested: Record<string, string> = {};
  for (const p of paths) {
    const m = nestedRe.exec(p);
    if (m) nested[m[1]] = text(files[p]);
  }
  return { topPath, topText: text(files[topPath]), nested };
}

type Resource = Record<string, unknown>;

function indicesFor(layout: VnfcLayout, vduId: string): number[] {
  const idx = layout[vduId];
  if (!idx) throw new Error(`No valid VNFC count given for VDU "${vduId}"`);
  return idx;
}

/**
 * The VNFC's copy of a VDU resource: get_param paths of this VDU's own
 * entries ([nfv, VDU, <vdu or its storage>, ...], [nfv, CP, <its cp>, ...]) get
 * the "-<index>" suffix. (Tacker suffixes the third element of every such
 * path, but only in top-level property values; we walk nested values too and
 * leave other VDUs' entries alone.)
 */
function vnfcResource(res: Resource, flavour: VnfdFlavour, vduId: string, index: number): Resource {
  const ownVdu = new Set([vduId, ...flavour.vdus[vduId].storageIds]);
  const ownCp = new Set(vduCpIds(flavour, vduId));
  const rewrite = (path: unknown[]) => {
    if (path.length >= 4 && path[0] === 'nfv') {
      const key = String(path[2]);
      if ((path[1] === 'VDU' && ownVdu.has(key)) || (path[1] === 'CP' && ownCp.has(key))) path[2] = indexedName(key, index);
    }
    return path;
  };
  return { ...structuredClone(res), properties: mapGetParamPaths(res.properties ?? {}, rewrite) };
}

/** The VDU an AutoScalingGroup manages: the server inside its member template, else its nfv.VDU reads. */
function asgVduId(res: Resource, nested: Record<string, string>, flavour: VnfdFlavour): string | undefined {
  const member = isObject(res.properties) && isObject(res.properties.resource) ? res.properties.resource : undefined;
  if (!member) return undefined;
  const text = typeof member.type === 'string' ? nested[member.type] : undefined;
  if (text !== undefined) {
    const resources = parseHot(text, member.type as string).resources;
    if (isObject(resources)) {
      for (const [name, r] of Object.entries(resources)) {
        if (isObject(r) && r.type === 'OS::Nova::Server' && name in flavour.vdus) return name;
      }
    }
  }
  const read = collectGetParamPaths(member.properties).find((p) => p[0] === 'nfv' && p[1] === 'VDU' && String(p[2]) in flavour.vdus);
  return read ? String(read[2]) : undefined;
}

/** The group sized to `count`, widening min_size/max_size when they exclude it. */
function withCapacity(res: Resource, count: number): Resource {
  const out = structuredClone(res);
  const props = (isObject(out.properties) ? out.properties : (out.properties = {})) as Record<string, unknown>;
  props.desired_capacity = count;
  if (typeof props.min_size === 'number' && props.min_size > count) props.min_size = count;
  if (typeof props.max_size === 'number' && props.max_size < count) props.max_size = count;
  return out;
}

/**
 * extManagedVirtualLinks, as Tacker's apply_ext_managed_vls: drop the VL's
 * OS::Neutron::Net and its subnets, and point `{get_resource: <vl>}` at the
 * given network instead.
 */
function applyExtManagedVls(resources: Record<string, unknown>, input: InstantiateInput): Record<string, unknown> {
  let out = resources;
  for (const vl of input.extManagedVirtualLinks ?? []) {
    const name = vl.vnfVirtualLinkDescId;
    const kept: Record<string, unknown> = {};
    for (const [resName, r] of Object.entries(out)) {
      const props = isObject(r) && isObject(r.properties) ? r.properties : {};
      const net = (isObject(props.network) ? props.network : isObject(props.network_id) ? props.network_id : {}).get_resource;
      const isItsSubnet = isObject(r) && r.type === 'OS::Neutron::Subnet' && net === name;
      if (resName !== name && !isItsSubnet) kept[resName] = replaceGetResource(r, name, vl.resourceId);
    }
    out = kept;
  }
  return out;
}

export function buildFromBaseHot(flavour: VnfdFlavour, hot: BaseHot, input: InstantiateInput, layout: VnfcLayout): StackSpec {
  const template = parseHot(hot.topText, hot.topPath);
  const resources = isObject(template.resources) ? template.resources : {};
  const out: Record<string, unknown> = {};
  const targets: NfvTarget[] = [];
  const placed = new Set<string>();

  for (const [name, res] of Object.entries(resources)) {
    if (!isObject(res)) { out[name] = res; continue; }
    if (name in flavour.vdus && typeof res.type === 'string' && res.type in hot.nested) {
      // Replaced in place, so the VNFCs keep the VDU's position in the template.
      for (const i of indicesFor(layout, name)) {
        out[indexedName(name, i)] = vnfcResource(res, flavour, name, i);
        targets.push(...vnfcTargets(flavour, name, i));
      }
      placed.add(name);
      continue;
    }
    const vduId = res.type === 'OS::Heat::AutoScalingGroup' ? asgVduId(res, hot.nested, flavour) : undefined;
    if (vduId) {
      out[name] = withCapacity(res, indicesFor(layout, vduId).length);
      targets.push(...vnfcTargets(flavour, vduId, undefined, true));
      placed.add(vduId);
      continue;
    }
    out[name] = res;
  }
  template.resources = applyExtManagedVls(out, input);
  const reads = collectGetParamPaths(template.resources);
  // VDUs the template defines some other way (e.g. a plain server) read unindexed entries.
  const readKeys = new Set(reads.filter((p) => p[0] === 'nfv').map((p) => String(p[2])));
  for (const vduId of Object.keys(flavour.vdus)) {
    if (placed.has(vduId)) continue;
    targets.push(...vnfcTargets(flavour, vduId, undefined).filter((t) => readKeys.has(t.key)));
  }
  const nfv = buildNfvParam(flavour, input, targets, reads);
  const params = isObject(template.parameters) ? template.parameters : (template.parameters = {});
  if (!('nfv' in params)) (params as Record<string, unknown>).nfv = { type: 'json' };
  return { template, files: { ...hot.nested }, parameters: { nfv } };
}

/** Names of the OS::Neutron::Port resources of a flavour's BaseHOT (top and nested): where a VIP such as Tacker's vip_CP lives. */
export function baseHotPortNames(files: Record<string, Buffer>, flavourId: string): string[] {
  const hot = findBaseHot(files, flavourId);
  if (!hot) return [];
  const ports = (source: string, t: string) => {
    const resources = parseHot(t, source).resources;
    return isObject(resources) ? Object.entries(resources).filter(([, r]) => isObject(r) && r.type === 'OS::Neutron::Port').map(([n]) => n) : [];
  };
  return [...new Set([...ports(hot.topPath, hot.topText), ...Object.entries(hot.nested).flatMap(([n, t]) => ports(n, t))])];
}
