import { NFV, type ToscaTypes } from './tosca-types';
import { isMap, scalarString, type YamlMap } from './yaml-values';

/** A node template whose type is (derived from) tosca.nodes.nfv.VNF. */
export interface VnfNode {
  id: string;
  node: YamlMap;
  /** Node properties over the type's defaults (see effectiveProperties). */
  properties: YamlMap;
}

/** The first VNF node in a file's topology_template, if any. */
export function findVnfNode(types: ToscaTypes, doc: YamlMap): VnfNode | undefined {
  for (const [id, node] of Object.entries(nodeTemplates(doc))) {
    if (isMap(node) && types.isNodeA(node.type, NFV.VNF)) {
      return { id, node, properties: effectiveProperties(types, node) };
    }
  }
  return undefined;
}

/**
 * A node's properties with its type's defaults filled in. Tacker's VNFDs
 * pin descriptor_id, provider, flavour_id… as defaults of the derived VNF
 * type, and write { get_input: … } in the node itself; a function value is
 * resolved at instantiation, so here the type default stands in for it.
 */
export function effectiveProperties(types: ToscaTypes, node: YamlMap): YamlMap {
  const merged: YamlMap = typeof node.type === 'string' ? types.nodePropertyDefaults(node.type) : {};
  if (isMap(node.properties)) {
    for (const [key, value] of Object.entries(node.properties)) {
      if (!isToscaFunction(value)) merged[key] = value;
    }
  }
  return merged;
}

const TOSCA_FUNCTIONS = new Set([
  'get_input', 'get_property', 'get_attribute', 'get_operation_output',
  'get_nodes_of_type', 'get_artifact', 'concat', 'join', 'token',
]);

/** { get_input: x } and the like: a value only known at deployment time. */
function isToscaFunction(value: unknown): boolean {
  if (!isMap(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && TOSCA_FUNCTIONS.has(keys[0]);
}

export function topologyTemplate(doc: YamlMap): YamlMap {
  return isMap(doc.topology_template) ? doc.topology_template : {};
}

export function nodeTemplates(doc: YamlMap): YamlMap {
  const templates = topologyTemplate(doc).node_templates;
  return isMap(templates) ? templates : {};
}

/** A string-valued property, or undefined. */
export function stringProperty(vnf: VnfNode, name: string): string | undefined {
  return scalarString(vnf.properties[name]);
}
