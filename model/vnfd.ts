/**
 * The product's model of an ETSI SOL001 VNFD, as Tacker's sample packages use it.
 * vnfpkg/vnfd.ts builds it from a package's TOSCA YAML; the infra driver (HOT
 * builder, instantiatedVnfInfo builder) and the workflows read only this model,
 * never the raw YAML. Plain JSON data: it travels through Temporal payloads.
 */

/** VNF-level properties from the VNF node (tosca.nodes.nfv.VNF subtype). */
export interface Vnfd {
  vnfdId: string; // descriptor_id
  provider: string;
  productName: string; // product_name
  softwareVersion: string; // software_version
  vnfdVersion: string; // descriptor_version
  description?: string;
  /** One entry per deployment flavour (one df file = one flavour). */
  flavours: Record<string, VnfdFlavour>;
}

/** Vnflcm interface hook names a VNFD may bind to an artifact. */
export const LCM_HOOKS = [
  'instantiate_start', 'instantiate_end',
  'terminate_start', 'terminate_end',
  'heal_start', 'heal_end',
  'scale_start', 'scale_end',
  'change_current_package_start', 'change_current_package_end',
  'change_external_connectivity_start', 'change_external_connectivity_end',
  'modify_information_start', 'modify_information_end',
] as const;
export type LcmHook = (typeof LCM_HOOKS)[number];

export interface LcmHookBinding {
  /** Artifact name as written under interfaces.Vnflcm.<hook>.implementation. */
  artifact: string;
  /** The artifact's `file`, resolved to a path inside the package ("Scripts/x.py"). */
  file?: string;
  /** The artifact's TOSCA type, e.g. tosca.artifacts.Implementation.Python. */
  type?: string;
}

export interface VnfdFlavour {
  flavourId: string;
  description?: string;
  /** Path of the df file inside the package that defined this flavour. */
  sourceFile: string;
  hooks: Partial<Record<LcmHook, LcmHookBinding>>;
  vdus: Record<string, Vdu>;
  storages: Record<string, VirtualStorage>;
  cps: Record<string, VduCp>;
  virtualLinks: Record<string, VnfVirtualLink>;
  /** substitution_mappings.requirements: requirement name -> [cpId, 'virtual_link']. */
  extVirtualLinkRequirements: Record<string, { cpId: string }>;
  scalingAspects: Record<string, ScalingAspect>;
  /** VduInitialDelta: vduId -> number_of_instances. */
  vduInitialDelta: Record<string, number>;
  /** VduScalingAspectDeltas: aspectId -> vduId -> deltaId -> number_of_instances. */
  vduScalingAspectDeltas: Record<string, Record<string, Record<string, number>>>;
  instantiationLevels: InstantiationLevels;
  /** VduInstantiationLevels: vduId -> levelId -> number_of_instances. */
  vduInstantiationLevels: Record<string, Record<string, number>>;
}

export interface Vdu {
  id: string; // node template name
  name: string;
  description?: string;
  minInstances: number;
  maxInstances: number;
  swImage?: SwImage;
  /** requested_additional_capability_name (the Nova flavor name Tacker uses). */
  flavorName?: string;
  virtualCompute: { memSizeMb?: number; numCpus?: number; localStorageGb?: number[] };
  /** Vdu.VirtualBlockStorage ids from requirements.virtual_storage. */
  storageIds: string[];
}

export interface SwImage {
  name: string;
  version?: string;
  checksum?: { algorithm: string; hash: string };
  containerFormat?: string;
  diskFormat?: string;
  /** artifacts.sw_image.file resolved to a path inside the package, if any. */
  file?: string;
  /** sw_image_data.min_disk (GB), min_ram (MB) and size (bytes), rounded up to whole units. */
  minDiskGb?: number;
  minRamMb?: number;
  sizeBytes?: number;
}

export interface VirtualStorage {
  id: string;
  sizeGb?: number;
  swImage?: SwImage;
}

export interface VduCp {
  id: string;
  /** requirements.virtual_binding */
  vduId: string;
  /** requirements.virtual_link (an internal VnfVirtualLink id); absent = external CP. */
  virtualLinkId?: string;
  order?: number;
  layerProtocols: string[];
}

export interface VnfVirtualLink {
  id: string;
  description?: string;
  layerProtocols: string[];
  /** l3_protocol_data cidrs from vl_profile.virtual_link_protocol_data. */
  cidrs: string[];
}

export interface ScalingAspect {
  id: string;
  name: string;
  description?: string;
  maxScaleLevel: number;
  stepDeltas: string[];
}

export interface InstantiationLevels {
  /** levelId -> description and aspectId -> scale_level. */
  levels: Record<string, { description?: string; scaleInfo: Record<string, number> }>;
  defaultLevel?: string;
}
