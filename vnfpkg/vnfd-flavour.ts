import type { DfContext } from './df-context';
import { PackageError } from './package-error';
import { NFV } from './tosca-types';
import { findVnfNode, nodeTemplates, stringProperty, topologyTemplate } from './vnf-node';
import { readHooks } from './vnfd-hooks';
import type { VnfdFlavour } from '../model/vnfd';
import { readCp, readStorage, readVdu, readVirtualLink } from './vnfd-nodes';
import { readPolicies } from './vnfd-policies';
import { isMap, optMap, optString, type YamlMap } from './yaml-values';

/**
 * Builds one deployment flavour from its df file (the file holding the
 * flavour's substitution_mappings and node templates), then checks that the
 * nodes only refer to each other by names that exist.
 */
export function readFlavour(ctx: DfContext, doc: YamlMap): VnfdFlavour {
  const topology = topologyTemplate(doc);
  const mappings = optMap(topology.substitution_mappings, ctx.file, 'topology_template.substitution_mappings');
  if (mappings?.node_type !== undefined && !ctx.types.isNodeA(mappings.node_type, NFV.VNF)) {
    throw new PackageError(`${ctx.file}: substitution_mappings.node_type "${String(mappings.node_type)}" is not a tosca.nodes.nfv.VNF type`);
  }
  const vnf = findVnfNode(ctx.types, doc);
  const mappedProps = optMap(mappings?.properties, ctx.file, 'substitution_mappings.properties');
  const flavourId = optString(mappedProps?.flavour_id, ctx.file, 'substitution_mappings.properties.flavour_id')
    ?? (vnf && stringProperty(vnf, 'flavour_id'));
  if (flavourId === undefined) {
    throw new PackageError(
      `${ctx.file}: cannot tell which flavour this file defines: set substitution_mappings.properties.flavour_id`,
    );
  }

  const nodes = readNodes(ctx, doc);
  const flavour: VnfdFlavour = {
    flavourId,
    description: vnf && stringProperty(vnf, 'flavour_description'),
    sourceFile: ctx.file,
    hooks: readHooks(ctx, vnf),
    ...nodes,
    extVirtualLinkRequirements: readExtRequirements(ctx, mappings, nodeTemplates(doc)),
    ...readPolicies(ctx, topology.policies, new Set(Object.keys(nodes.vdus))),
  };
  checkNodeReferences(ctx, flavour);
  return flavour;
}

type FlavourNodes = Pick<VnfdFlavour, 'vdus' | 'storages' | 'cps' | 'virtualLinks'>;

function readNodes(ctx: DfContext, doc: YamlMap): FlavourNodes {
  const nodes: FlavourNodes = { vdus: {}, storages: {}, cps: {}, virtualLinks: {} };
  for (const [id, node] of Object.entries(nodeTemplates(doc))) {
    if (!isMap(node)) throw new PackageError(`${ctx.file}: node ${id} must be a mapping`);
    const isA = (base: string) => ctx.types.isNodeA(node.type, base);
    if (isA(NFV.VDU_COMPUTE)) nodes.vdus[id] = readVdu(ctx, id, node);
    else if (isA(NFV.VDU_BLOCK_STORAGE)) nodes.storages[id] = readStorage(ctx, id, node);
    else if (isA(NFV.VDU_CP)) nodes.cps[id] = readCp(ctx, id, node);
    else if (isA(NFV.VIRTUAL_LINK)) nodes.virtualLinks[id] = readVirtualLink(ctx, id, node);
  }
  return nodes;
}

/** substitution_mappings.requirements: "virtual_link_external1_1: [ VDU1_CP1, virtual_link ]". */
function readExtRequirements(
  ctx: DfContext,
  mappings: YamlMap | undefined,
  nodes: YamlMap,
): VnfdFlavour['extVirtualLinkRequirements'] {
  const result: VnfdFlavour['extVirtualLinkRequirements'] = {};
  const requirements = optMap(mappings?.requirements, ctx.file, 'substitution_mappings.requirements') ?? {};
  for (const [name, mapping] of Object.entries(requirements)) {
    const where = `${ctx.file}: substitution_mappings.requirements.${name}`;
    const cpId = Array.isArray(mapping) ? mapping[0] : undefined;
    if (typeof cpId !== 'string') throw new PackageError(`${where} must be a list [ <cp node>, <requirement> ]`);
    if (!(cpId in nodes)) throw new PackageError(`${where} maps to node "${cpId}", which this flavour does not define`);
    result[name] = { cpId };
  }
  return result;
}

function checkNodeReferences(ctx: DfContext, flavour: VnfdFlavour): void {
  for (const vdu of Object.values(flavour.vdus)) {
    for (const storageId of vdu.storageIds) {
      if (!flavour.storages[storageId]) {
        throw new PackageError(`${ctx.file}: node ${vdu.id}: virtual_storage "${storageId}" is not a Vdu.VirtualBlockStorage of this flavour`);
      }
    }
  }
  for (const cp of Object.values(flavour.cps)) {
    if (!flavour.vdus[cp.vduId]) {
      throw new PackageError(`${ctx.file}: node ${cp.id}: virtual_binding "${cp.vduId}" is not a VDU of this flavour`);
    }
    if (cp.virtualLinkId !== undefined && !flavour.virtualLinks[cp.virtualLinkId]) {
      throw new PackageError(`${ctx.file}: node ${cp.id}: virtual_link "${cp.virtualLinkId}" is not a VnfVirtualLink of this flavour`);
    }
  }
}
