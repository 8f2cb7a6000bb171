/**
 * Heat stack building (infra/hot) against Tacker's sample packages: the
 * BaseHOT files are the real ones; the VNFD models are written by hand to
 * mirror the samples' Definitions (and, at the end, checked against the
 * package parser's output for the same packages).
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { buildStack, layoutOf, resourceTypesFromSetting, vduCountsForLevel, vduCountsForScaleLevels, type InstantiateInput } from '../../infra/hot';
import type { Vnfd, VnfdFlavour } from '../../model/vnfd';
import { image, v2Flavour } from '../support/v2-flavour';
import { loadZip, tackerSampleZip } from '../support/vnfpkg-fixtures';

/** Tacker's v2_userdata_standard makes a volume type (admin-only in OpenStack): an operator allows it. */
const SAMPLE_TYPES = resourceTypesFromSetting('default,OS::Cinder::VolumeType');

const SAMPLES = path.resolve(__dirname, '../../../shared/tacker-samples');

/** Package files under `sub` of a sample, keyed by package path like the package store does. */
function sampleFiles(sample: string, sub: string): Record<string, Buffer> {
  const root = path.join(SAMPLES, sample);
  const out: Record<string, Buffer> = {};
  for (const rel of fs.readdirSync(path.join(root, sub), { recursive: true }) as string[]) {
    const full = path.join(root, sub, rel);
    if (fs.statSync(full).isFile()) out[`${sub}/${rel}`.split(path.sep).join('/')] = fs.readFileSync(full);
  }
  return out;
}

const noPolicies = {
  scalingAspects: {}, vduInitialDelta: {}, vduScalingAspectDeltas: {}, instantiationLevels: { levels: {} }, vduInstantiationLevels: {},
};
const vnfdOf = (vnfdId: string, productName: string, flavour: VnfdFlavour): Vnfd => ({
  vnfdId, provider: 'Company', productName, softwareVersion: '1.0', vnfdVersion: '1.0', flavours: { [flavour.flavourId]: flavour },
});

function k8sFlavour(): VnfdFlavour {
  const node = (id: string, min: number, max: number) => ({
    id, name: id, minInstances: min, maxInstances: max, swImage: image(`Image for ${id} kubernetes`, '20.04'),
    flavorName: 'm1.medium', virtualCompute: { memSizeMb: 4096, numCpus: 2, localStorageGb: [45] }, storageIds: [],
  });
  return {
    flavourId: 'simple', sourceFile: 'Definitions/sample_kubernetes_df_simple.yaml', hooks: {},
    vdus: { masterNode: node('masterNode', 1, 3), workerNode: node('workerNode', 2, 4) },
    storages: {},
    cps: {
      masterNode_CP1: { id: 'masterNode_CP1', vduId: 'masterNode', order: 0, layerProtocols: ['ipv4'] },
      workerNode_CP2: { id: 'workerNode_CP2', vduId: 'workerNode', order: 0, layerProtocols: ['ipv4'] },
    },
    virtualLinks: {},
    extVirtualLinkRequirements: { virtual_link_external1_1: { cpId: 'masterNode_CP1' }, virtual_link_external1_2: { cpId: 'workerNode_CP2' } },
    scalingAspects: {
      master_instance: { id: 'master_instance', name: 'master_instance', maxScaleLevel: 2, stepDeltas: ['delta_1'] },
      worker_instance: { id: 'worker_instance', name: 'worker_instance', maxScaleLevel: 2, stepDeltas: ['delta_1'] },
    },
    vduInitialDelta: { masterNode: 1, workerNode: 2 },
    vduScalingAspectDeltas: { master_instance: { masterNode: { delta_1: 1 } }, worker_instance: { workerNode: { delta_1: 1 } } },
    instantiationLevels: {
      levels: {
        instantiation_level_1: { scaleInfo: { master_instance: 0, worker_instance: 0 } },
        instantiation_level_2: { scaleInfo: { master_instance: 2, worker_instance: 2 } },
      },
      defaultLevel: 'instantiation_level_1',
    },
    vduInstantiationLevels: {
      masterNode: { instantiation_level_1: 1, instantiation_level_2: 3 },
      workerNode: { instantiation_level_1: 2, instantiation_level_2: 4 },
    },
  };
}

/** private_registry_vnf_package, Definitions/sample_vnfd_df_simple.yaml: no flavour name, no BaseHOT. */
function registryFlavour(): VnfdFlavour {
  return {
    flavourId: 'simple', sourceFile: 'Definitions/sample_vnfd_df_simple.yaml', hooks: {},
    vdus: {
      PrivateRegistryVDU: {
        id: 'PrivateRegistryVDU', name: 'PrivateRegistryVDU', minInstances: 1, maxInstances: 1, swImage: image('Image for Private registry', '20.04'),
        virtualCompute: { memSizeMb: 4096, numCpus: 2, localStorageGb: [45] }, storageIds: [],
      },
    },
    storages: {},
    cps: { CP1: { id: 'CP1', vduId: 'PrivateRegistryVDU', order: 0, layerProtocols: ['ipv4'] } },
    virtualLinks: {},
    extVirtualLinkRequirements: { virtual_link_external: { cpId: 'CP1' } },
    ...noPolicies,
  };
}

const V2_VNFD = vnfdOf('b1bb0ce7-ebca-4fa7-95ed-4840d7000000', 'Sample VNF', v2Flavour());
const K8S_VNFD = vnfdOf('b1db0ce7-ebca-1fb7-95ed-4840d70a1163', 'Sample VNF', k8sFlavour());
const REGISTRY_VNFD = vnfdOf('b1bb0ce7-ebca-4fa7-95ed-4840d70a1189', 'Sample Private registry VNF', registryFlavour());

/** Request as in Tacker's v2 functional tests: VDU2_CP1 gets a dynamic address on a given subnet. */
const v2Input = (over: Partial<InstantiateInput> = {}): InstantiateInput => ({
  flavourId: 'simple',
  instantiationLevelId: 'instantiation_level_2',
  extVirtualLinks: [
    { id: 'ext1', resourceId: 'net-ext-1', extCps: [{ cpdId: 'VDU1_CP1', cpConfig: { VDU1_CP1_1: { cpProtocolData: [{ layerProtocol: 'IP_OVER_ETHERNET' }] } } }] },
    {
      id: 'ext2', resourceId: 'net-ext-2',
      extCps: [{
        cpdId: 'VDU2_CP1',
        cpConfig: { VDU2_CP1_1: { cpProtocolData: [{ layerProtocol: 'IP_OVER_ETHERNET', ipOverEthernet: { ipAddresses: [{ type: 'IPV4', numDynamicAddresses: 1, subnetId: 'subnet-ext-2' }] } }] } },
      }],
    },
  ],
  ...over,
});

const res = (spec: { template: Record<string, unknown> }) => spec.template.resources as Record<string, { type: string; properties: Record<string, unknown>; depends_on?: string[] }>;
const gp = (...p: (string | number)[]) => ({ get_param: p });

describe('VNFC counts', () => {
  const v2 = v2Flavour();

  test('instantiation level: VduInstantiationLevels, default level when none is asked', () => {
    expect(vduCountsForLevel(v2, 'instantiation_level_2')).toEqual({ VDU1: 2, VDU2: 1 });
    expect(vduCountsForLevel(v2)).toEqual({ VDU1: 1, VDU2: 1 });
    expect(vduCountsForLevel(k8sFlavour(), 'instantiation_level_2')).toEqual({ masterNode: 3, workerNode: 4 });
  });

  test('no levels at all: VduInitialDelta, else the VDU minimum', () => {
    expect(vduCountsForLevel(registryFlavour())).toEqual({ PrivateRegistryVDU: 1 });
    const f = { ...v2, instantiationLevels: { levels: {} }, vduInstantiationLevels: {}, vduInitialDelta: { VDU1: 2 } };
    expect(vduCountsForLevel(f)).toEqual({ VDU1: 2, VDU2: 1 });
  });

  test('a level without VduInstantiationLevels for a VDU follows its scale_info', () => {
    const f = { ...v2, vduInstantiationLevels: {} };
    expect(vduCountsForLevel(f, 'instantiation_level_2')).toEqual({ VDU1: 2, VDU2: 1 });
  });

  test('unknown level id is an error naming it', () => {
    expect(() => vduCountsForLevel(v2, 'instantiation_level_9')).toThrow('Unknown instantiation level "instantiation_level_9" for flavour "simple"');
  });

  test('scale levels: initial delta + deltas per step, clamped to [min, max]', () => {
    expect(vduCountsForScaleLevels(v2, { VDU1_scale: 0 })).toEqual({ VDU1: 1, VDU2: 1 });
    expect(vduCountsForScaleLevels(v2, { VDU1_scale: 2 })).toEqual({ VDU1: 3, VDU2: 1 });
    expect(vduCountsForScaleLevels(v2, { VDU1_scale: 5 })).toEqual({ VDU1: 3, VDU2: 1 });
    expect(vduCountsForScaleLevels(k8sFlavour(), { master_instance: 1, worker_instance: 2 })).toEqual({ masterNode: 2, workerNode: 4 });
    expect(vduCountsForScaleLevels(k8sFlavour(), {})).toEqual({ masterNode: 1, workerNode: 2 });
  });

  test('non-uniform step deltas apply one per step, the last one repeating', () => {
    const f: VnfdFlavour = {
      ...v2,
      vdus: { ...v2.vdus, VDU1: { ...v2.vdus.VDU1, maxInstances: 10 } },
      scalingAspects: { VDU1_scale: { id: 'VDU1_scale', name: 'VDU1_scale', maxScaleLevel: 3, stepDeltas: ['d1', 'd2'] } },
      vduScalingAspectDeltas: { VDU1_scale: { VDU1: { d1: 1, d2: 2 } } },
    };
    expect(vduCountsForScaleLevels(f, { VDU1_scale: 1 }).VDU1).toBe(2);
    expect(vduCountsForScaleLevels(f, { VDU1_scale: 3 }).VDU1).toBe(6);
  });
});

describe('BaseHOT with per-VNFC nested resources (v2_userdata_standard)', () => {
  const files = sampleFiles('v2_userdata_standard', 'BaseHOT');
  const flavour = V2_VNFD.flavours.simple;
  const build = (input = v2Input()) => buildStack(V2_VNFD, flavour, files, input, layoutOf(vduCountsForLevel(flavour, input.instantiationLevelId)), SAMPLE_TYPES);

  test('one resource per VNFC in place of each VDU resource, the rest untouched', () => {
    const spec = build();
    expect(Object.keys(res(spec))).toEqual([
      'VDU1-0', 'VDU1-1', 'VDU2-0', 'internalVL1', 'internalVL2', 'internalVL1_subnet', 'internalVL2_subnet', 'nfvi_node_affinity',
    ]);
    expect(res(spec)['VDU1-1'].type).toBe('VDU1.yaml');
    expect(res(spec)['VDU2-0'].type).toBe('VDU2.yaml');
    expect(res(spec).internalVL1_subnet.properties).toEqual({ ip_version: 4, network: { get_resource: 'internalVL1' }, cidr: '192.168.3.0/24' });
    expect(spec.template.heat_template_version).toBe('2013-05-23');
    expect(spec.template.parameters).toEqual({ nfv: { type: 'json' } });
  });

  test("get_param paths of the VNFC's own VDU, storage and CPs carry its index", () => {
    const r = res(build());
    expect(r['VDU1-1'].properties).toEqual({
      flavor: gp('nfv', 'VDU', 'VDU1-1', 'computeFlavourId'),
      'image-VDU1': gp('nfv', 'VDU', 'VDU1-1', 'vcImageId'),
      zone: gp('nfv', 'VDU', 'VDU1-1', 'locationConstraints'),
      name: gp('nfv', 'VDU', 'VDU1-1', 'name'),
      net1: gp('nfv', 'CP', 'VDU1_CP1-1', 'network'),
      net2: { get_resource: 'internalVL1' },
      net3: { get_resource: 'internalVL2' },
    });
    expect(r['VDU1-0'].properties.net1).toEqual(gp('nfv', 'CP', 'VDU1_CP1-0', 'network'));
    expect(r['VDU2-0'].properties).toEqual({
      flavor: gp('nfv', 'VDU', 'VDU2-0', 'computeFlavourId'),
      'image-VDU2-VirtualStorage': gp('nfv', 'VDU', 'VDU2-VirtualStorage-0', 'vcImageId'),
      net1: gp('nfv', 'CP', 'VDU2_CP1-0', 'network'),
      subnet1: gp('nfv', 'CP', 'VDU2_CP1-0', 'fixed_ips', 0, 'subnet'),
      net2: { get_resource: 'internalVL1' },
      net3: { get_resource: 'internalVL2' },
      affinity: { get_resource: 'nfvi_node_affinity' },
    });
  });

  test('nfv parameter: flavour, image (the boot volume image for VDU2), names, ext CP networks and subnet', () => {
    expect(build().parameters).toEqual({
      nfv: {
        VDU: {
          'VDU1-0': { computeFlavourId: 'm1.tiny', vcImageId: 'cirros-0.5.2-x86_64-disk', locationConstraints: null, name: 'VDU1-0' },
          'VDU1-1': { computeFlavourId: 'm1.tiny', vcImageId: 'cirros-0.5.2-x86_64-disk', locationConstraints: null, name: 'VDU1-1' },
          'VDU2-0': { computeFlavourId: 'm1.tiny', vcImageId: 'VDU2-VirtualStorage-image' },
          'VDU2-VirtualStorage-0': { vcImageId: 'VDU2-VirtualStorage-image' },
        },
        CP: {
          'VDU1_CP1-0': { network: 'net-ext-1' },
          'VDU1_CP1-1': { network: 'net-ext-1' },
          'VDU2_CP1-0': { network: 'net-ext-2', fixed_ips: [{ subnet: 'subnet-ext-2' }] },
        },
      },
    });
  });

  test('files: every nested template by bare name, unchanged', () => {
    const spec = build();
    expect(Object.keys(spec.files).sort()).toEqual(['VDU1.yaml', 'VDU2.yaml']);
    expect(spec.files['VDU1.yaml']).toBe(files['BaseHOT/simple/nested/VDU1.yaml'].toString('utf8'));
  });

  test('the default level gives one VNFC per VDU', () => {
    const spec = build(v2Input({ instantiationLevelId: undefined }));
    expect(Object.keys(res(spec)).filter((k) => k.startsWith('VDU'))).toEqual(['VDU1-0', 'VDU2-0']);
  });

  test('each VNFC takes its own cpConfig entry (fixed addresses per instance)', () => {
    const input = v2Input();
    input.extVirtualLinks![0].extCps[0].cpConfig = {
      a: { cpProtocolData: [{ layerProtocol: 'IP_OVER_ETHERNET', ipOverEthernet: { ipAddresses: [{ type: 'IPV4', fixedAddresses: ['10.10.0.10'], subnetId: 's1' }] } }] },
      b: { cpProtocolData: [{ layerProtocol: 'IP_OVER_ETHERNET', ipOverEthernet: { ipAddresses: [{ type: 'IPV4', fixedAddresses: ['10.10.0.11'], subnetId: 's1' }] } }] },
    };
    const cps = (build(input).parameters.nfv as { CP: Record<string, unknown> }).CP;
    expect(cps['VDU1_CP1-0']).toEqual({ network: 'net-ext-1', fixed_ips: [{ ip_address: '10.10.0.10', subnet: 's1' }] });
    expect(cps['VDU1_CP1-1']).toEqual({ network: 'net-ext-1', fixed_ips: [{ ip_address: '10.10.0.11', subnet: 's1' }] });
  });

  test('additionalParams.nfv is merged over the computed values', () => {
    const spec = build(v2Input({ additionalParams: { nfv: { VDU: { 'VDU1-0': { locationConstraints: 'az-1', computeFlavourId: 'm1.small' } } } } }));
    expect((spec.parameters.nfv as { VDU: Record<string, unknown> }).VDU['VDU1-0'])
      .toEqual({ computeFlavourId: 'm1.small', vcImageId: 'cirros-0.5.2-x86_64-disk', locationConstraints: 'az-1', name: 'VDU1-0' });
  });

  test('extManagedVirtualLinks replace the VL network and its subnet', () => {
    const spec = build(v2Input({ extManagedVirtualLinks: [{ id: 'mgd1', vnfVirtualLinkDescId: 'internalVL1', resourceId: 'net-managed-1' }] }));
    expect(Object.keys(res(spec))).not.toContain('internalVL1');
    expect(Object.keys(res(spec))).not.toContain('internalVL1_subnet');
    expect(res(spec)['VDU1-0'].properties.net2).toBe('net-managed-1');
    expect(res(spec)['VDU2-0'].properties.net3).toEqual({ get_resource: 'internalVL2' });
  });

  test('an external CP the request does not connect is a clear error', () => {
    const input = v2Input();
    input.extVirtualLinks = input.extVirtualLinks!.slice(0, 1);
    expect(() => build(input)).toThrow('External CP "VDU2_CP1" has no network');
  });

  test('a subnet the HOT reads but cpConfig does not give is a clear error', () => {
    const input = v2Input();
    input.extVirtualLinks![1].extCps[0].cpConfig = { c: { cpProtocolData: [{ layerProtocol: 'IP_OVER_ETHERNET' }] } };
    expect(() => build(input)).toThrow(/CP "VDU2_CP1": the HOT reads fixed_ips\.0\.subnet/);
  });

  test('a missing count is an error, not a silently dropped VDU', () => {
    expect(() => buildStack(V2_VNFD, flavour, files, v2Input(), layoutOf({ VDU1: 1 }), SAMPLE_TYPES)).toThrow('No valid VNFC count given for VDU "VDU2"');
  });

  test('a layout gives exactly its indices (BlueGreen: new VNFCs beside the old, then only the new)', () => {
    const spec = buildStack(V2_VNFD, flavour, files, v2Input(), { VDU1: [0, 2, 3], VDU2: [1] }, SAMPLE_TYPES);
    expect(Object.keys(res(spec)).filter((n) => /^VDU\d-\d+$/.test(n))).toEqual(['VDU1-0', 'VDU1-2', 'VDU1-3', 'VDU2-1']);
    expect(Object.keys((spec.parameters.nfv as { VDU: object }).VDU)).toEqual(expect.arrayContaining(['VDU1-3', 'VDU2-1']));
    expect(Object.keys((spec.parameters.nfv as { VDU: object }).VDU)).not.toContain('VDU1-1');
    expect(JSON.stringify(res(spec)['VDU1-3'].properties)).toContain('"VDU1-3"');
  });
});

describe('BaseHOT with AutoScalingGroups (kubernetes_vnf_package, simple)', () => {
  const files = sampleFiles('kubernetes_vnf_package', 'BaseHOT');
  const input: InstantiateInput = {
    flavourId: 'simple',
    extVirtualLinks: [
      { id: 'net0', resourceId: 'net-k8s', extCps: [{ cpdId: 'masterNode_CP1' }, { cpdId: 'workerNode_CP2' }] },
    ],
  };
  const build = (counts: Record<string, number>) => buildStack(K8S_VNFD, K8S_VNFD.flavours.simple, files, input, layoutOf(counts));
  type Asg = { min_size: number; max_size: number; desired_capacity: number };

  test('groups keep their names; desired_capacity follows the counts, min/max widened when needed', () => {
    const r = res(build({ masterNode: 3, workerNode: 1 }));
    expect(Object.keys(r)).toEqual([
      'master_instance', 'master_instance_scale_out', 'master_instance_scale_in', 'worker_instance', 'worker_instance_scale_out', 'worker_instance_scale_in',
    ]);
    expect(r.master_instance.properties).toMatchObject<Asg>({ min_size: 1, max_size: 3, desired_capacity: 3 });
    expect(r.worker_instance.properties).toMatchObject<Asg>({ min_size: 1, max_size: 4, desired_capacity: 1 });
    expect(res(build({ masterNode: 1, workerNode: 6 })).worker_instance.properties).toMatchObject<Asg>({ min_size: 2, max_size: 6, desired_capacity: 6 });
    // The member template's get_param paths stay unindexed: all members share one entry.
    expect((r.master_instance.properties.resource as { properties: unknown }).properties).toEqual({
      flavor: gp('nfv', 'VDU', 'masterNode', 'flavor'), image: gp('nfv', 'VDU', 'masterNode', 'image'), net1: gp('nfv', 'CP', 'masterNode_CP1', 'network'),
    });
  });

  test('nfv parameter per VDU and CP, files of this flavour only', () => {
    const spec = build(vduCountsForLevel(K8S_VNFD.flavours.simple, 'instantiation_level_2'));
    const master = { flavor: 'm1.medium', image: 'Image for masterNode kubernetes', computeFlavourId: 'm1.medium', vcImageId: 'Image for masterNode kubernetes' };
    const worker = { flavor: 'm1.medium', image: 'Image for workerNode kubernetes', computeFlavourId: 'm1.medium', vcImageId: 'Image for workerNode kubernetes' };
    expect(spec.parameters).toEqual({
      nfv: { VDU: { masterNode: master, workerNode: worker }, CP: { masterNode_CP1: { network: 'net-k8s' }, workerNode_CP2: { network: 'net-k8s' } } },
    });
    expect(Object.keys(spec.files).sort()).toEqual(['simple_nested_master.yaml', 'simple_nested_worker.yaml']);
    expect(res(spec).worker_instance.properties.desired_capacity).toBe(4);
  });
});

describe('HOT generated from the VNFD (no BaseHOT)', () => {
  const registryInput = (): InstantiateInput => ({
    flavourId: 'simple',
    // As in the private registry guide (v1 request: cpConfig is a list).
    extVirtualLinks: [{ id: 'net0', resourceId: 'f0c82461-36b5-4d86-8322-b0bc19cda65f', extCps: [{ cpdId: 'CP1', cpConfig: [{ cpProtocolData: [{ layerProtocol: 'IP_OVER_ETHERNET' }] }] }] }],
    additionalParams: { private_registry_installation_param: { ssh_cp_name: 'CP1', ssh_username: 'ubuntu', ssh_password: 'ubuntu' } },
  });
  const flavour = REGISTRY_VNFD.flavours.simple;
  const build = (input: InstantiateInput) => buildStack(REGISTRY_VNFD, flavour, {}, input, layoutOf(vduCountsForLevel(flavour)), SAMPLE_TYPES);

  test('private registry: one VNFC resource of the VDU template, a flavour made from virtual_compute', () => {
    const spec = build(registryInput());
    expect(res(spec)).toEqual({
      PrivateRegistryVDU_flavor: { type: 'OS::Nova::Flavor', properties: { ram: 4096, vcpus: 2, disk: 45 } },
      'PrivateRegistryVDU-0': {
        type: 'PrivateRegistryVDU.yaml',
        properties: {
          name: gp('nfv', 'VDU', 'PrivateRegistryVDU-0', 'name'),
          flavor: { get_resource: 'PrivateRegistryVDU_flavor' },
          image: gp('nfv', 'VDU', 'PrivateRegistryVDU-0', 'vcImageId'),
          'net-CP1': gp('nfv', 'CP', 'CP1-0', 'network'),
        },
      },
    });
    expect(spec.parameters).toEqual({
      nfv: {
        VDU: { 'PrivateRegistryVDU-0': { vcImageId: 'Image for Private registry', name: 'PrivateRegistryVDU-0' } },
        CP: { 'CP1-0': { network: 'f0c82461-36b5-4d86-8322-b0bc19cda65f' } },
      },
    });
    expect(spec.template).toMatchObject({ heat_template_version: '2013-05-23', parameters: { nfv: { type: 'json' } } });
  });

  test('private registry: the nested template has the server, its port and the parameters they read', () => {
    const files = build(registryInput()).files;
    expect(Object.keys(files)).toEqual(['PrivateRegistryVDU.yaml']);
    const nested = YAML.parse(files['PrivateRegistryVDU.yaml']);
    expect(nested.heat_template_version).toBe('2013-05-23');
    expect(Object.keys(nested.parameters)).toEqual(['name', 'flavor', 'image', 'net-CP1']);
    expect(nested.resources).toEqual({
      PrivateRegistryVDU: {
        type: 'OS::Nova::Server',
        properties: { name: { get_param: 'name' }, flavor: { get_param: 'flavor' }, image: { get_param: 'image' }, image_update_policy: 'REBUILD', networks: [{ port: { get_resource: 'CP1' } }] },
      },
      CP1: { type: 'OS::Neutron::Port', properties: { network: { get_param: 'net-CP1' } } },
    });
  });

  test('private registry: an external CP without an extVirtualLink is a clear error', () => {
    expect(() => build({ flavourId: 'simple' })).toThrow(/External CP "CP1" has no network: the request's extVirtualLinks must list it/);
  });

  describe('v2 sample VNFD without its BaseHOT', () => {
    const v2 = V2_VNFD.flavours.simple;
    const spec = buildStack(V2_VNFD, v2, {}, v2Input(), layoutOf(vduCountsForLevel(v2, 'instantiation_level_2')));

    test('internal VLs become Net + Subnet with the VNFD cidr; VNFCs wait for the subnets', () => {
      const r = res(spec);
      expect(Object.keys(r)).toEqual(['internalVL1', 'internalVL1_subnet', 'internalVL2', 'internalVL2_subnet', 'VDU1-0', 'VDU1-1', 'VDU2-0']);
      expect(r.internalVL2_subnet.properties).toEqual({ ip_version: 4, network: { get_resource: 'internalVL2' }, cidr: '192.168.4.0/24' });
      expect(r['VDU1-1'].depends_on).toEqual(['internalVL1_subnet', 'internalVL2_subnet']);
      expect(r['VDU1-1'].properties).toEqual({
        name: gp('nfv', 'VDU', 'VDU1-1', 'name'),
        flavor: gp('nfv', 'VDU', 'VDU1-1', 'computeFlavourId'),
        image: gp('nfv', 'VDU', 'VDU1-1', 'vcImageId'),
        'net-VDU1_CP1': gp('nfv', 'CP', 'VDU1_CP1-1', 'network'),
        'net-VDU1_CP2': { get_resource: 'internalVL1' },
        'net-VDU1_CP3': { get_resource: 'internalVL2' },
      });
      expect(r['VDU2-0'].properties).toMatchObject({
        'image-VDU2-VirtualStorage': gp('nfv', 'VDU', 'VDU2-VirtualStorage-0', 'vcImageId'),
        'fixed-ips-VDU2_CP1': gp('nfv', 'CP', 'VDU2_CP1-0', 'fixed_ips'),
      });
    });

    test('a VDU without its own image boots from its storage volume; ports in CP order', () => {
      const nested = YAML.parse(spec.files['VDU2.yaml']);
      expect(nested.resources.VDU2.properties).toEqual({
        name: { get_param: 'name' },
        flavor: { get_param: 'flavor' },
        networks: [{ port: { get_resource: 'VDU2_CP1' } }, { port: { get_resource: 'VDU2_CP2' } }, { port: { get_resource: 'VDU2_CP3' } }],
        block_device_mapping_v2: [{ volume_id: { get_resource: 'VDU2-VirtualStorage' }, boot_index: 0 }],
      });
      expect(nested.resources['VDU2-VirtualStorage']).toEqual({
        type: 'OS::Cinder::Volume', properties: { size: 1, image: { get_param: 'image-VDU2-VirtualStorage' } },
      });
      expect(nested.resources.VDU2_CP1.properties).toEqual({ network: { get_param: 'net-VDU2_CP1' }, fixed_ips: { get_param: 'fixed-ips-VDU2_CP1' } });
    });

    test('nfv parameter as in BaseHOT mode', () => {
      const nfv = spec.parameters.nfv as { VDU: Record<string, unknown>; CP: Record<string, unknown> };
      expect(nfv.VDU['VDU1-1']).toEqual({ computeFlavourId: 'm1.tiny', vcImageId: 'cirros-0.5.2-x86_64-disk', name: 'VDU1-1' });
      expect(nfv.VDU['VDU2-VirtualStorage-0']).toEqual({ vcImageId: 'VDU2-VirtualStorage-image' });
      expect(nfv.CP['VDU2_CP1-0']).toEqual({ network: 'net-ext-2', fixed_ips: [{ subnet: 'subnet-ext-2' }] });
    });

    test('a VL without cidr gets a generated /24; an ext-managed VL gets no Net', () => {
      const f: VnfdFlavour = { ...v2, virtualLinks: { ...v2.virtualLinks, internalVL1: { ...v2.virtualLinks.internalVL1, cidrs: [] } } };
      const s = buildStack(V2_VNFD, f, {}, v2Input({ extManagedVirtualLinks: [{ id: 'm', vnfVirtualLinkDescId: 'internalVL2', resourceId: 'net-mgd' }] }), layoutOf({ VDU1: 1, VDU2: 1 }));
      expect(res(s).internalVL1_subnet.properties.cidr).toBe('10.0.0.0/24');
      expect(res(s).internalVL2).toBeUndefined();
      expect(res(s)['VDU1-0'].properties['net-VDU1_CP3']).toBe('net-mgd');
      expect(res(s)['VDU1-0'].depends_on).toEqual(['internalVL1_subnet']);
    });
  });
});

describe('with VNFD models from the package parser', () => {
  const cases: [string, Vnfd, InstantiateInput][] = [
    ['v2_userdata_standard', V2_VNFD, v2Input()],
    ['kubernetes_vnf_package', K8S_VNFD, { flavourId: 'simple', extVirtualLinks: [{ id: 'n', resourceId: 'net', extCps: [{ cpdId: 'masterNode_CP1' }, { cpdId: 'workerNode_CP2' }] }] }],
    ['private_registry_vnf_package', REGISTRY_VNFD, { flavourId: 'simple', extVirtualLinks: [{ id: 'n', resourceId: 'net', extCps: [{ cpdId: 'CP1' }] }] }],
  ];
  test.each(cases)('%s: same stack as from the hand-written model', async (name, handWritten, input) => {
    const { csar, vnfd, file } = await loadZip(tackerSampleZip(name));
    const baseHot = Object.fromEntries(await Promise.all(Object.keys(csar.files).filter((p) => p.startsWith('BaseHOT/')).map(async (p) => [p, await file(p)] as const)));
    const stack = (v: Vnfd) => buildStack(v, v.flavours.simple, baseHot, input, layoutOf(vduCountsForLevel(v.flavours.simple, input.instantiationLevelId)), SAMPLE_TYPES);
    expect(stack(vnfd)).toEqual(stack(handWritten));
  });
});
