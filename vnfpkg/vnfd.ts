import type { Csar } from './csar';
import type { DfContext } from './df-context';
import { PackageError } from './package-error';
import { ToscaTypes, NFV } from './tosca-types';
import { findVnfNode, nodeTemplates, stringProperty, topologyTemplate, type VnfNode } from './vnf-node';
import { readFlavour } from './vnfd-flavour';
import type { Vnfd, VnfdFlavour } from '../model/vnfd';
import { parseYamlFile } from './yaml-file';
import { isMap, type YamlMap } from './yaml-values';

/**
 * Builds the VNFD model from a package read by readCsar, the way Tacker's
 * SOL001 packages lay it out: the top file holds the VNF node (its identity),
 * and each df file (one with topology_template.substitution_mappings) holds
 * one deployment flavour. Throws PackageError when the VNFD is incomplete or
 * refers to things it does not define.
 */
export function buildVnfd(csar: Csar): Vnfd {
  const docs = new Map(csar.vnfdFiles.map((path) => [path, parseYamlFile(csar.texts, path)] as const));
  const types = new ToscaTypes([...docs.values()]);
  const top = docs.get(csar.entryDefinitions) ?? parseYamlFile(csar.texts, csar.entryDefinitions);
  const dfFiles = flavourFiles(csar, docs, types);

  // The identity lives on the top file's VNF node; a df file's VNF node is the fallback.
  const vnfFile = [csar.entryDefinitions, ...dfFiles].find((path) => findVnfNode(types, docs.get(path) ?? top));
  if (vnfFile === undefined) {
    throw new PackageError(`${csar.entryDefinitions}: no node template of type tosca.nodes.nfv.VNF (or a type derived from it)`);
  }
  const vnf = findVnfNode(types, docs.get(vnfFile) ?? top)!;

  const flavours: Record<string, VnfdFlavour> = {};
  for (const file of dfFiles) {
    const ctx: DfContext = { files: csar.files, file, types };
    const flavour = readFlavour(ctx, docs.get(file)!);
    const clash = flavours[flavour.flavourId];
    if (clash) {
      throw new PackageError(`Flavour "${flavour.flavourId}" is defined twice: in ${clash.sourceFile} and in ${file}`);
    }
    flavours[flavour.flavourId] = flavour;
  }

  return {
    ...readIdentity(vnfFile, vnf),
    description: typeof top.description === 'string' ? top.description : undefined,
    flavours,
  };
}

/**
 * The df files: every VNFD file with substitution_mappings. A single-file
 * VNFD (no substitution_mappings anywhere, VDUs in the top file) is its own
 * single flavour.
 */
function flavourFiles(csar: Csar, docs: Map<string, YamlMap>, types: ToscaTypes): string[] {
  const withMappings = csar.vnfdFiles.filter((path) => isMap(topologyTemplate(docs.get(path)!).substitution_mappings));
  if (withMappings.length > 0) return withMappings;
  const top = docs.get(csar.entryDefinitions)!;
  const topHasVdus = Object.values(nodeTemplates(top)).some((n) => isMap(n) && types.isNodeA(n.type, NFV.VDU_COMPUTE));
  if (topHasVdus) return [csar.entryDefinitions];
  throw new PackageError(
    `${csar.entryDefinitions}: the VNFD defines no deployment flavour (no imported file has topology_template.substitution_mappings)`,
  );
}

/** The VNF node properties that identify the VNFD; all required. */
function readIdentity(file: string, vnf: VnfNode): Omit<Vnfd, 'description' | 'flavours'> {
  const read = (property: string) => {
    const value = stringProperty(vnf, property);
    if (value === undefined) {
      throw new PackageError(
        `${file}: VNF node ${vnf.id} has no ${property} (neither as a property nor as a default of type ${String(vnf.node.type)})`,
      );
    }
    return value;
  };
  return {
    vnfdId: read('descriptor_id'),
    provider: read('provider'),
    productName: read('product_name'),
    softwareVersion: read('software_version'),
    vnfdVersion: read('descriptor_version'),
  };
}
