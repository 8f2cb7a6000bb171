/**
 * Mode (b): no BaseHOT in the package, so the HOT is derived from the VNFD
 * (what Tacker v1 did through heat-translator). Same shape as mode (a):
 * one nested template per VDU (<vduId>.yaml), one top resource per VNFC
 * ("<vduId>-<index>") reading the `nfv` parameter, one Net + Subnet per
 * internal virtual link.
 */
import type { Vnfd, VnfdFlavour } from '../../model/vnfd';
import { fixedIpsForCp } from './ext-links';
import { stringifyHot } from './heat-yaml';
import { buildNfvParam, indexedName, type NfvTarget, vduCpIds, vnfcTargets } from './nfv-param';
import { collectGetParamPaths } from './template-walk';
import type { VnfcLayout } from './layout';
import type { InstantiateInput, StackSpec } from './types';

const HOT_VERSION = '2013-05-23'; // the version Tacker's BaseHOT samples use

/** get_param of the top template's nfv json (a path) / of a nested template's own parameter (a name). */
const param = (...path: string[]) => ({ get_param: path });
const own = (name: string) => ({ get_param: name });
const netParam = (cpId: string) => `net-${cpId}`;
const fixedIpsParam = (cpId: string) => `fixed-ips-${cpId}`;
const imageParam = (storageId: string) => `image-${storageId}`;
const flavorResourceName = (vduId: string) => `${vduId}_flavor`;
const subnetResourceName = (vlId: string) => `${vlId}_subnet`;

/** What a VDU's nested template needs to know beyond the VNFD. */
interface VduPlan {
  vduId: string;
  indices: number[];
  /** External CPs whose ports get fixed_ips from the request's cpConfig. */
  cpsWithFixedIps: Set<string>;
}

function isExternal(flavour: VnfdFlavour, cpId: string): boolean {
  return !flavour.cps[cpId].virtualLinkId;
}

/** A nested template can't vary per VNFC, so either every instance of the CP gets fixed_ips or none does. */
function cpsWithFixedIps(flavour: VnfdFlavour, input: InstantiateInput, vduId: string, indices: number[]): Set<string> {
  const out = new Set<string>();
  for (const cpId of vduCpIds(flavour, vduId).filter((id) => isExternal(flavour, id))) {
    const given = indices.map((i) => fixedIpsForCp(input, cpId, i).length > 0);
    if (given.every(Boolean) && indices.length > 0) out.add(cpId);
    else if (given.some(Boolean)) {
      throw new Error(`External CP "${cpId}": cpConfig gives IP addresses/subnets for some of its ${indices.length} instances but not all; give one cpConfig entry per instance or a single entry for all`);
    }
  }
  return out;
}

/** The nested template of one VDU: its server, a port per CP (in `order`), a volume per storage. */
function vduTemplate(vnfd: Vnfd, flavour: VnfdFlavour, plan: VduPlan): Record<string, unknown> {
  const vdu = flavour.vdus[plan.vduId];
  const cpIds = vduCpIds(flavour, plan.vduId);
  const parameters: Record<string, unknown> = { name: { type: 'string' }, flavor: { type: 'string' } };
  const resources: Record<string, unknown> = {};
  const server: Record<string, unknown> = { name: own('name'), flavor: own('flavor') };

  if (vdu.swImage) {
    parameters.image = { type: 'string' };
    server.image = own('image');
    // A new image rebuilds the server in place (same id, ports, volumes): see the README on change_vnfpkg.
    server.image_update_policy = 'REBUILD';
  }
  let bootVolume = !vdu.swImage;
  const bdm: Record<string, unknown>[] = [];
  for (const sid of vdu.storageIds) {
    const storage = flavour.storages[sid];
    const volume: Record<string, unknown> = { size: storage?.sizeGb ?? 1 };
    if (storage?.swImage) {
      parameters[imageParam(sid)] = { type: 'string' };
      volume.image = own(imageParam(sid));
    }
    resources[sid] = { type: 'OS::Cinder::Volume', properties: volume };
    const mapping: Record<string, unknown> = { volume_id: { get_resource: sid } };
    // With no image of its own the server boots from its first image-bearing volume.
    if (bootVolume && storage?.swImage) { mapping.boot_index = 0; bootVolume = false; }
    bdm.push(mapping);
  }
  if (bootVolume) {
    throw new Error(`VDU "${plan.vduId}" has no software image and no virtual storage with one to boot from`);
  }
  server.networks = cpIds.map((cpId) => ({ port: { get_resource: cpId } }));
  if (bdm.length) server.block_device_mapping_v2 = bdm;

  for (const cpId of cpIds) {
    parameters[netParam(cpId)] = { type: 'string' };
    const port: Record<string, unknown> = { network: own(netParam(cpId)) };
    if (plan.cpsWithFixedIps.has(cpId)) {
      parameters[fixedIpsParam(cpId)] = { type: 'json' };
      port.fixed_ips = own(fixedIpsParam(cpId));
    }
    resources[cpId] = { type: 'OS::Neutron::Port', properties: port };
  }
  return {
    heat_template_version: HOT_VERSION,
    description: `${plan.vduId} of VNFD ${vnfd.vnfdId} flavour ${flavour.flavourId} (generated from the VNFD)`,
    parameters,
    resources: { [plan.vduId]: { type: 'OS::Nova::Server', properties: server }, ...resources },
  };
}

/** A /24 for links whose VNFD gives no cidr: 10.0.0.0/24, 10.0.1.0/24, ... by position. */
const generatedCidr = (n: number) => `10.${(n >> 8) & 255}.${n & 255}.0/24`;

/** Net + Subnet per internal VL (none for extManagedVirtualLinks); returns what ports attach to. */
function virtualLinks(flavour: VnfdFlavour, input: InstantiateInput, resources: Record<string, unknown>) {
  const networkOf: Record<string, unknown> = {};
  const subnetOf: Record<string, string> = {};
  let generated = 0;
  for (const vl of Object.values(flavour.virtualLinks)) {
    const managed = input.extManagedVirtualLinks?.find((m) => m.vnfVirtualLinkDescId === vl.id);
    if (managed) { networkOf[vl.id] = managed.resourceId; continue; }
    const cidr = vl.cidrs[0] ?? generatedCidr(generated++);
    resources[vl.id] = { type: 'OS::Neutron::Net' };
    resources[subnetResourceName(vl.id)] = {
      type: 'OS::Neutron::Subnet',
      properties: { ip_version: cidr.includes(':') ? 6 : 4, network: { get_resource: vl.id }, cidr },
    };
    networkOf[vl.id] = { get_resource: vl.id };
    subnetOf[vl.id] = subnetResourceName(vl.id);
  }
  return { networkOf, subnetOf };
}

/**
 * Nova flavour for a VDU without requested_additional_capability_name: one
 * made from its virtual_compute (as heat-translator did for Tacker v1).
 */
function flavorFromVirtualCompute(flavour: VnfdFlavour, vduId: string): Record<string, unknown> {
  const { memSizeMb, numCpus, localStorageGb } = flavour.vdus[vduId].virtualCompute;
  if (memSizeMb === undefined || numCpus === undefined) {
    throw new Error(`VDU "${vduId}" names no flavour (requested_additional_capability_name) and its virtual_compute lacks memory or CPU to make one`);
  }
  return { type: 'OS::Nova::Flavor', properties: { ram: memSizeMb, vcpus: numCpus, disk: localStorageGb?.[0] ?? 0 } };
}

export function buildGeneratedHot(vnfd: Vnfd, flavour: VnfdFlavour, input: InstantiateInput, layout: VnfcLayout): StackSpec {
  const resources: Record<string, unknown> = {};
  const { networkOf, subnetOf } = virtualLinks(flavour, input, resources);
  const files: Record<string, string> = {};
  const targets: NfvTarget[] = [];

  for (const [vduId, vdu] of Object.entries(flavour.vdus)) {
    const indices = layout[vduId];
    if (!indices) throw new Error(`No valid VNFC count given for VDU "${vduId}"`);
    const plan: VduPlan = { vduId, indices, cpsWithFixedIps: cpsWithFixedIps(flavour, input, vduId, indices) };
    // Every VDU gets its template, even at count 0, so a later scale-out finds it.
    files[`${vduId}.yaml`] = stringifyHot(vduTemplate(vnfd, flavour, plan));
    if (!vdu.flavorName && indices.length > 0) resources[flavorResourceName(vduId)] = flavorFromVirtualCompute(flavour, vduId);

    const cpIds = vduCpIds(flavour, vduId);
    // Heat orders a port after its subnet only within one stack; across the nested boundary we must say so.
    const dependsOn = [...new Set(cpIds.map((id) => subnetOf[flavour.cps[id].virtualLinkId ?? '']).filter(Boolean))];
    for (const i of indices) {
      const key = indexedName(vduId, i);
      const props: Record<string, unknown> = {
        name: param('nfv', 'VDU', key, 'name'),
        flavor: vdu.flavorName ? param('nfv', 'VDU', key, 'computeFlavourId') : { get_resource: flavorResourceName(vduId) },
      };
      if (vdu.swImage) props.image = param('nfv', 'VDU', key, 'vcImageId');
      for (const sid of vdu.storageIds) {
        if (flavour.storages[sid]?.swImage) props[imageParam(sid)] = param('nfv', 'VDU', indexedName(sid, i), 'vcImageId');
      }
      for (const cpId of cpIds) {
        const vlId = flavour.cps[cpId].virtualLinkId;
        props[netParam(cpId)] = vlId ? networkOf[vlId] : param('nfv', 'CP', indexedName(cpId, i), 'network');
        if (plan.cpsWithFixedIps.has(cpId)) props[fixedIpsParam(cpId)] = param('nfv', 'CP', indexedName(cpId, i), 'fixed_ips');
      }
      resources[key] = { type: `${vduId}.yaml`, properties: props, ...(dependsOn.length ? { depends_on: dependsOn } : {}) };
      targets.push(...vnfcTargets(flavour, vduId, i));
    }
  }

  const template: Record<string, unknown> = {
    heat_template_version: HOT_VERSION,
    description: `VNFD ${vnfd.vnfdId} flavour ${flavour.flavourId} (generated from the VNFD)`,
    parameters: { nfv: { type: 'json' } },
    resources,
  };
  const nfv = buildNfvParam(flavour, input, targets, collectGetParamPaths(resources));
  return { template, files, parameters: { nfv } };
}
