/**
 * The VNFD model of Tacker's v2_userdata_standard sample (flavour "simple",
 * Definitions/v2_sample3_df_simple.yaml), written by hand for the infra tests.
 */
import type { SwImage, VnfdFlavour } from '../../model/vnfd';

export const image = (name: string, version = '0.5.2'): SwImage => ({ name, version, containerFormat: 'bare', diskFormat: 'qcow2' });

/** v2_userdata_standard, Definitions/v2_sample3_df_simple.yaml. */
export function v2Flavour(): VnfdFlavour {
  const compute = { memSizeMb: 512, numCpus: 1, localStorageGb: [3] };
  const cp = (id: string, vduId: string, order: number, virtualLinkId?: string) => ({ id, vduId, order, layerProtocols: ['ipv4'], ...(virtualLinkId ? { virtualLinkId } : {}) });
  return {
    flavourId: 'simple', sourceFile: 'Definitions/v2_sample3_df_simple.yaml', hooks: {},
    vdus: {
      VDU1: { id: 'VDU1', name: 'VDU1', minInstances: 1, maxInstances: 3, swImage: image('cirros-0.5.2-x86_64-disk'), flavorName: 'm1.tiny', virtualCompute: compute, storageIds: [] },
      VDU2: { id: 'VDU2', name: 'VDU2', minInstances: 1, maxInstances: 1, flavorName: 'm1.tiny', virtualCompute: compute, storageIds: ['VDU2-VirtualStorage'] },
    },
    storages: { 'VDU2-VirtualStorage': { id: 'VDU2-VirtualStorage', sizeGb: 1, swImage: image('VDU2-VirtualStorage-image') } },
    cps: {
      VDU1_CP1: cp('VDU1_CP1', 'VDU1', 0), VDU1_CP2: cp('VDU1_CP2', 'VDU1', 1, 'internalVL1'), VDU1_CP3: cp('VDU1_CP3', 'VDU1', 2, 'internalVL2'),
      VDU2_CP1: cp('VDU2_CP1', 'VDU2', 0), VDU2_CP2: cp('VDU2_CP2', 'VDU2', 1, 'internalVL1'), VDU2_CP3: cp('VDU2_CP3', 'VDU2', 2, 'internalVL2'),
    },
    virtualLinks: {
      internalVL1: { id: 'internalVL1', layerProtocols: ['ipv4'], cidrs: ['192.168.3.0/24'] },
      internalVL2: { id: 'internalVL2', layerProtocols: ['ipv4'], cidrs: ['192.168.4.0/24'] },
    },
    extVirtualLinkRequirements: { virtual_link_external1_1: { cpId: 'VDU1_CP1' }, virtual_link_external1_2: { cpId: 'VDU2_CP1' } },
    scalingAspects: { VDU1_scale: { id: 'VDU1_scale', name: 'VDU1_scale', maxScaleLevel: 2, stepDeltas: ['delta_1'] } },
    vduInitialDelta: { VDU1: 1, VDU2: 1 },
    vduScalingAspectDeltas: { VDU1_scale: { VDU1: { delta_1: 1 } } },
    instantiationLevels: {
      levels: {
        instantiation_level_1: { description: 'Smallest size', scaleInfo: { VDU1_scale: 0 } },
        instantiation_level_2: { description: 'Largest size', scaleInfo: { VDU1_scale: 1 } },
      },
      defaultLevel: 'instantiation_level_1',
    },
    vduInstantiationLevels: {
      VDU1: { instantiation_level_1: 1, instantiation_level_2: 2 },
      VDU2: { instantiation_level_1: 1, instantiation_level_2: 1 },
    },
  };
}

/** kubernetes_vnf_package, Definitions/sample_kubernetes_df_simple.yaml. */
