/**
 * The `nfv` json parameter both stack modes feed to Heat, shaped like Tacker
 * v2's (nfv.VDU.<name>.computeFlavourId / vcImageId / ..., nfv.CP.<name>.network
 * / fixed_ips): the HOT reads it with get_param [nfv, VDU|CP, <name>, ...].
 * <name> is "<id>-<index>" for per-VNFC resources, the bare id for VDUs in an
 * AutoScalingGroup (all members share one entry).
 */
import type { VnfdFlavour } from '../../model/vnfd';
import { fixedIpsForCp, networkForCp } from './ext-links';
import { isObject, jsonMergePatch } from './template-walk';
import type { InstantiateInput } from './types';

export type NfvTarget =
  | { kind: 'vdu'; key: string; vduId: string; index: number; asg: boolean }
  | { kind: 'storage'; key: string; storageId: string; index: number }
  | { kind: 'cp'; key: string; cpId: string; index: number };

export type NfvParam = { VDU: Record<string, Record<string, unknown>>; CP: Record<string, Record<string, unknown>> } & Record<string, unknown>;

export const indexedName = (id: string, index?: number): string => (index === undefined ? id : `${id}-${index}`);

/** nfv keys of one VNFC (or of an ASG-managed VDU when index is undefined). */
export function vnfcTargets(flavour: VnfdFlavour, vduId: string, index: number | undefined, asg = false): NfvTarget[] {
  const i = index ?? 0;
  const vdu = flavour.vdus[vduId];
  return [
    { kind: 'vdu', key: indexedName(vduId, index), vduId, index: i, asg },
    ...vdu.storageIds.map((storageId): NfvTarget => ({ kind: 'storage', key: indexedName(storageId, index), storageId, index: i })),
    ...vduCpIds(flavour, vduId).map((cpId): NfvTarget => ({ kind: 'cp', key: indexedName(cpId, index), cpId, index: i })),
  ];
}

/** The VduCp ids bound to a VDU, in their `order`. */
export function vduCpIds(flavour: VnfdFlavour, vduId: string): string[] {
  return Object.values(flavour.cps)
    .filter((cp) => cp.vduId === vduId)
    .sort((a, b) => (a.order ?? Number.MAX_SAFE_INTEGER) - (b.order ?? Number.MAX_SAFE_INTEGER))
    .map((cp) => cp.id);
}

/** Image a VDU boots: its own sw image, else the image of a storage it boots from. */
export function vduImageName(flavour: VnfdFlavour, vduId: string): string | undefined {
  const vdu = flavour.vdus[vduId];
  if (vdu.swImage) return vdu.swImage.name;
  for (const sid of vdu.storageIds) {
    const image = flavour.storages[sid]?.swImage?.name;
    if (image) return image;
  }
  return undefined;
}

function extManagedNetwork(flavour: VnfdFlavour, input: InstantiateInput, cpId: string): string | undefined {
  const vlId = flavour.cps[cpId]?.virtualLinkId;
  return vlId ? input.extManagedVirtualLinks?.find((l) => l.vnfVirtualLinkDescId === vlId)?.resourceId : undefined;
}

function valuesFor(flavour: VnfdFlavour, input: InstantiateInput, t: NfvTarget): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const set = (k: string, v: unknown) => { if (v !== undefined) out[k] = v; };
  if (t.kind === 'vdu') {
    const flavor = flavour.vdus[t.vduId].flavorName;
    const image = vduImageName(flavour, t.vduId);
    set('computeFlavourId', flavor);
    set('vcImageId', image);
    // The kubernetes samples' ASG templates read nfv.VDU.<vdu>.flavor / image.
    if (t.asg) { set('flavor', flavor); set('image', image); }
  } else if (t.kind === 'storage') {
    set('vcImageId', flavour.storages[t.storageId]?.swImage?.name);
  } else if (flavour.cps[t.cpId] && !flavour.cps[t.cpId].virtualLinkId) {
    set('network', networkForCp(input, t.cpId));
    const fixedIps = fixedIpsForCp(input, t.cpId, t.index);
    if (fixedIps.length) out.fixed_ips = fixedIps;
  } else {
    set('network', extManagedNetwork(flavour, input, t.cpId));
  }
  return out;
}

/** Give every referenced leaf a slot (null when nothing fills it), as Tacker's init_nfv_dict. */
function addSkeleton(nfv: Record<string, unknown>, path: unknown[]): void {
  let parent: Record<string, unknown> = nfv;
  for (const [i, raw] of path.slice(1).entries()) {
    const key = String(raw);
    const last = i === path.length - 2;
    if (last) { if (parent[key] === undefined) parent[key] = null; return; }
    if (parent[key] === undefined || parent[key] === null) parent[key] = {};
    const next = parent[key];
    if (!isObject(next)) return; // already a list/scalar (e.g. fixed_ips): leave it
    parent = next;
  }
}

/** Heat's get_param path resolution (missing keys/indexes give undefined). */
function resolve(nfv: unknown, path: unknown[]): unknown {
  let cur: unknown = nfv;
  for (const key of path.slice(1)) {
    if (Array.isArray(cur)) cur = cur[Number(key)];
    else if (isObject(cur)) cur = cur[String(key)];
    else return undefined;
  }
  return cur;
}

const REQUIRED_VDU_LEAVES: Record<string, string> = {
  computeFlavourId: 'a flavour (requested_additional_capability_name)',
  flavor: 'a flavour (requested_additional_capability_name)',
  vcImageId: 'a software image (sw_image_data)',
  image: 'a software image (sw_image_data)',
};

/** Fail early, with the VNFD/request element to fix, instead of an obscure Heat error. */
function checkReferencedValues(nfv: NfvParam, paths: unknown[][], byKey: Map<string, NfvTarget>, flavour: VnfdFlavour): void {
  for (const path of paths) {
    const value = resolve(nfv, path);
    if (value !== null && value !== undefined && value !== '') continue;
    const [, section, key, leaf] = path.map(String);
    const target = byKey.get(key);
    const where = `additionalParams.nfv.${section}["${key}"].${path.slice(3).join('.')}`;
    if (section === 'CP') {
      const cpId = target?.kind === 'cp' ? target.cpId : key;
      const external = flavour.cps[cpId] && !flavour.cps[cpId].virtualLinkId;
      if (leaf === 'network' && external) {
        throw new Error(`External CP "${cpId}" has no network: the request's extVirtualLinks must list it in extCps (cpdId "${cpId}")`);
      }
      if (leaf === 'fixed_ips') {
        throw new Error(`CP "${cpId}": the HOT reads ${path.slice(3).join('.')} but the extVirtualLinks cpConfig for "${cpId}" gives no such IP address/subnet`);
      }
      throw new Error(`CP "${cpId}": nothing provides nfv parameter ${path.slice(1).join('.')}; set ${where}`);
    }
    if (section === 'VDU' && leaf in REQUIRED_VDU_LEAVES) {
      throw new Error(`VDU "${key}": the VNFD gives no ${REQUIRED_VDU_LEAVES[leaf]} for the HOT's ${leaf}; add it to the VNFD or set ${where}`);
    }
  }
}

/**
 * The nfv parameter for `targets`, plus null slots for every other nfv path
 * the template reads, then additionalParams.nfv merged over it (RFC 7386).
 */
export function buildNfvParam(flavour: VnfdFlavour, input: InstantiateInput, targets: NfvTarget[], referencedPaths: unknown[][]): NfvParam {
  const nfv: NfvParam = { VDU: {}, CP: {} };
  const byKey = new Map<string, NfvTarget>();
  for (const t of targets) {
    byKey.set(t.key, t);
    const values = valuesFor(flavour, input, t);
    const section = t.kind === 'cp' ? nfv.CP : nfv.VDU;
    if (Object.keys(values).length || t.kind === 'vdu') section[t.key] = { ...section[t.key], ...values };
  }
  const paths = referencedPaths.filter((p) => p.length >= 4 && p[0] === 'nfv');
  for (const path of paths) {
    const [, section, key, leaf] = path.map(String);
    const t = byKey.get(key);
    // A VNFC's server name is its Heat resource name, e.g. "VDU1-0".
    if (section === 'VDU' && leaf === 'name' && path.length === 4 && t?.kind === 'vdu' && nfv.VDU[key].name === undefined) {
      nfv.VDU[key].name = key;
    }
    addSkeleton(nfv, path);
  }
  const extra = input.additionalParams?.nfv;
  const merged = (extra === undefined ? nfv : jsonMergePatch(nfv, extra)) as NfvParam;
  checkReferencedValues(merged, paths, byKey, flavour);
  return merged;
}
