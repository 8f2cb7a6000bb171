import { isMap, type YamlMap } from './yaml-values';

/** SOL001 base types the VNFD model is built from. */
export const NFV = {
  VNF: 'tosca.nodes.nfv.VNF',
  VDU_COMPUTE: 'tosca.nodes.nfv.Vdu.Compute',
  VDU_BLOCK_STORAGE: 'tosca.nodes.nfv.Vdu.VirtualBlockStorage',
  VDU_CP: 'tosca.nodes.nfv.VduCp',
  VIRTUAL_LINK: 'tosca.nodes.nfv.VnfVirtualLink',
  SCALING_ASPECTS: 'tosca.policies.nfv.ScalingAspects',
  VDU_INITIAL_DELTA: 'tosca.policies.nfv.VduInitialDelta',
  VDU_SCALING_ASPECT_DELTAS: 'tosca.policies.nfv.VduScalingAspectDeltas',
  INSTANTIATION_LEVELS: 'tosca.policies.nfv.InstantiationLevels',
  VDU_INSTANTIATION_LEVELS: 'tosca.policies.nfv.VduInstantiationLevels',
} as const;

type TypeSection = 'node_types' | 'policy_types';

/**
 * The node and policy types declared across a VNFD's files. Lets the builder
 * recognise derived types ("company.provider.VNF derived_from
 * tosca.nodes.nfv.VNF") and read the property defaults they declare.
 */
export class ToscaTypes {
  private readonly sections: Record<TypeSection, Map<string, YamlMap>> = {
    node_types: new Map(),
    policy_types: new Map(),
  };

  constructor(docs: YamlMap[]) {
    for (const doc of docs) {
      for (const section of Object.keys(this.sections) as TypeSection[]) {
        const declared = doc[section];
        if (!isMap(declared)) continue;
        for (const [name, def] of Object.entries(declared)) {
          if (isMap(def)) this.sections[section].set(name, def);
        }
      }
    }
  }

  /** True when `type` is `base` or derives from it (directly or transitively). */
  isA(section: TypeSection, type: unknown, base: string): boolean {
    return typeof type === 'string' && this.ancestry(section, type).includes(base);
  }

  isNodeA(type: unknown, base: string): boolean {
    return this.isA('node_types', type, base);
  }

  isPolicyA(type: unknown, base: string): boolean {
    return this.isA('policy_types', type, base);
  }

  /**
   * Property defaults of a node type, inherited ones included; a derived
   * type's default overrides its parent's.
   */
  nodePropertyDefaults(type: string): YamlMap {
    const defaults: YamlMap = {};
    for (const name of this.ancestry('node_types', type).reverse()) {
      const properties = this.sections.node_types.get(name)?.properties;
      if (!isMap(properties)) continue;
      for (const [prop, def] of Object.entries(properties)) {
        if (isMap(def) && def.default !== undefined) defaults[prop] = def.default;
      }
    }
    return defaults;
  }

  /** [type, parent, grandparent, …]; stops at an undeclared type or a cycle. */
  private ancestry(section: TypeSection, type: string): string[] {
    const chain: string[] = [];
    let current: string | undefined = type;
    while (current !== undefined && !chain.includes(current)) {
      chain.push(current);
      const parent: unknown = this.sections[section].get(current)?.derived_from;
      current = typeof parent === 'string' ? parent : undefined;
    }
    return chain;
  }
}
