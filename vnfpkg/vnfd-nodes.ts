import { resolveArtifactFile } from './artifacts';
import { nodeWhere, type DfContext } from './df-context';
import { PackageError } from './package-error';
import { optSizeIn } from './scalar-units';
import type { SwImage, Vdu, VduCp, VirtualStorage, VnfVirtualLink } from '../model/vnfd';
import {
  isMap, optList, optMap, optNumber, optString, reqNumber, reqString, singleKeyEntries, stringList, type YamlMap,
} from './yaml-values';

/** Readers for the SOL001 node templates of one deployment flavour. */

export function readVdu(ctx: DfContext, id: string, node: YamlMap): Vdu {
  const where = nodeWhere(ctx, id);
  const props = optMap(node.properties, where, 'properties') ?? {};
  const profile = optMap(props.vdu_profile, where, 'properties.vdu_profile');
  if (!profile) throw new PackageError(`${where}: VDU has no properties.vdu_profile (min/max number of instances)`);
  const minInstances = instanceCount(profile.min_number_of_instances, where, 'vdu_profile.min_number_of_instances');
  const maxInstances = instanceCount(profile.max_number_of_instances, where, 'vdu_profile.max_number_of_instances');
  if (minInstances > maxInstances) {
    throw new PackageError(`${where}: vdu_profile.min_number_of_instances (${minInstances}) exceeds max_number_of_instances (${maxInstances})`);
  }

  const compute = optMap(optMap(optMap(node.capabilities, where, 'capabilities')?.virtual_compute,
    where, 'capabilities.virtual_compute')?.properties, where, 'capabilities.virtual_compute.properties') ?? {};
  const computeWhat = 'capabilities.virtual_compute.properties';
  const memory = optMap(compute.virtual_memory, where, `${computeWhat}.virtual_memory`);
  const cpu = optMap(compute.virtual_cpu, where, `${computeWhat}.virtual_cpu`);
  const localStorage = optList(compute.virtual_local_storage, where, `${computeWhat}.virtual_local_storage`);

  return {
    id,
    name: optString(props.name, where, 'properties.name') ?? id,
    description: optString(props.description, where, 'properties.description'),
    minInstances,
    maxInstances,
    swImage: readSwImage(ctx, id, node, props),
    flavorName: requestedCapabilityName(compute.requested_additional_capabilities, where),
    virtualCompute: {
      memSizeMb: optSizeIn('MB', memory?.virtual_mem_size, where, 'virtual_memory.virtual_mem_size'),
      numCpus: optNumber(cpu?.num_virtual_cpu, where, 'virtual_cpu.num_virtual_cpu'),
      localStorageGb: localStorage?.map((item, i) =>
        optSizeIn('GB', isMap(item) ? item.size_of_storage : undefined, where,
          `virtual_local_storage[${i}].size_of_storage`) ?? 0),
    },
    storageIds: requirementTargets(node, where, 'virtual_storage'),
  };
}

export function readStorage(ctx: DfContext, id: string, node: YamlMap): VirtualStorage {
  const where = nodeWhere(ctx, id);
  const props = optMap(node.properties, where, 'properties') ?? {};
  const data = optMap(props.virtual_block_storage_data, where, 'properties.virtual_block_storage_data');
  return {
    id,
    sizeGb: optSizeIn('GB', data?.size_of_storage, where, 'virtual_block_storage_data.size_of_storage'),
    swImage: readSwImage(ctx, id, node, props),
  };
}

export function readCp(ctx: DfContext, id: string, node: YamlMap): VduCp {
  const where = nodeWhere(ctx, id);
  const props = optMap(node.properties, where, 'properties') ?? {};
  const [vduId, ...extraBindings] = requirementTargets(node, where, 'virtual_binding');
  if (vduId === undefined) throw new PackageError(`${where}: VduCp has no virtual_binding requirement (the VDU it belongs to)`);
  if (extraBindings.length > 0) throw new PackageError(`${where}: VduCp has more than one virtual_binding`);
  const [virtualLinkId] = requirementTargets(node, where, 'virtual_link');
  return {
    id,
    vduId,
    virtualLinkId,
    order: optNumber(props.order, where, 'properties.order'),
    layerProtocols: stringList(props.layer_protocols, where, 'properties.layer_protocols'),
  };
}

export function readVirtualLink(ctx: DfContext, id: string, node: YamlMap): VnfVirtualLink {
  const where = nodeWhere(ctx, id);
  const props = optMap(node.properties, where, 'properties') ?? {};
  const connectivity = optMap(props.connectivity_type, where, 'properties.connectivity_type');
  const profile = optMap(props.vl_profile, where, 'properties.vl_profile');
  const protocolData = optList(profile?.virtual_link_protocol_data, where, 'vl_profile.virtual_link_protocol_data') ?? [];
  const cidrs = protocolData.flatMap((item, i) => {
    const l3 = isMap(item) ? optMap(item.l3_protocol_data, where, `virtual_link_protocol_data[${i}].l3_protocol_data`) : undefined;
    const cidr = optString(l3?.cidr, where, `virtual_link_protocol_data[${i}].l3_protocol_data.cidr`);
    return cidr === undefined ? [] : [cidr];
  });
  return {
    id,
    description: optString(props.description, where, 'properties.description'),
    layerProtocols: stringList(connectivity?.layer_protocols, where, 'connectivity_type.layer_protocols'),
    cidrs,
  };
}

/** The node names a node's requirements of one kind point at ("- virtual_link: internalVL1"). */
function requirementTargets(node: YamlMap, where: string, requirement: string): string[] {
  return singleKeyEntries(node.requirements, where, 'requirements')
    .filter(([name]) => name === requirement)
    .map(([, target]) => {
      // Short form "virtual_link: VL1" or extended form "virtual_link: {node: VL1}".
      const name = isMap(target) ? target.node : target;
      if (typeof name !== 'string') throw new PackageError(`${where}: requirement ${requirement} must name a node`);
      return name;
    });
}

function instanceCount(value: unknown, where: string, what: string): number {
  const n = reqNumber(value, where, what);
  if (!Number.isInteger(n) || n < 0) throw new PackageError(`${where}: ${what} must be a non-negative integer, got ${n}`);
  return n;
}

/**
 * The Nova flavor name. SOL001 keys requested_additional_capabilities by a
 * capability name; Tacker's samples use the key "properties". Either way the
 * value holds requested_additional_capability_name.
 */
function requestedCapabilityName(value: unknown, where: string): string | undefined {
  const capabilities = optMap(value, where, 'virtual_compute.requested_additional_capabilities') ?? {};
  for (const capability of Object.values(capabilities)) {
    if (isMap(capability) && capability.requested_additional_capability_name !== undefined) {
      return optString(capability.requested_additional_capability_name, where, 'requested_additional_capability_name');
    }
  }
  return undefined;
}

/** sw_image_data plus the sw_image artifact, for a VDU or a VirtualBlockStorage. */
/** SOL005 states these as unsigned integers: a fraction of a unit needs the whole unit. */
const wholeUnits = (n: number | undefined) => (n === undefined ? undefined : Math.ceil(n));

function readSwImage(ctx: DfContext, id: string, node: YamlMap, props: YamlMap): SwImage | undefined {
  const where = nodeWhere(ctx, id);
  const data = optMap(props.sw_image_data, where, 'properties.sw_image_data');
  const artifact = optMap(node.artifacts, where, 'artifacts')?.sw_image;
  // An artifact in short form is just the file name.
  const fileName = optString(isMap(artifact) ? artifact.file : artifact, where, 'artifacts.sw_image.file');
  const file = fileName === undefined
    ? undefined
    : resolveArtifactFile(ctx.files, ctx.file, fileName, `${where}: artifact sw_image`);
  if (!data && fileName === undefined) return undefined;

  const checksum = optMap(data?.checksum, where, 'sw_image_data.checksum');
  return {
    name: optString(data?.name, where, 'sw_image_data.name') ?? id,
    version: optString(data?.version, where, 'sw_image_data.version'),
    checksum: checksum && {
      algorithm: reqString(checksum.algorithm, where, 'sw_image_data.checksum.algorithm'),
      hash: reqString(checksum.hash, where, 'sw_image_data.checksum.hash'),
    },
    containerFormat: optString(data?.container_format, where, 'sw_image_data.container_format'),
    diskFormat: optString(data?.disk_format, where, 'sw_image_data.disk_format'),
    file,
    minDiskGb: wholeUnits(optSizeIn('GB', data?.min_disk, where, 'sw_image_data.min_disk')),
    minRamMb: wholeUnits(optSizeIn('MB', data?.min_ram, where, 'sw_image_data.min_ram')),
    sizeBytes: wholeUnits(optSizeIn('B', data?.size, where, 'sw_image_data.size')),
  };
}
