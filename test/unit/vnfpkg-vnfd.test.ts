import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PackageError, type Vnfd } from '../../vnfpkg';
import { softwareImages } from '../../vnfpkg/pkg-info';
import { sizeIn } from '../../vnfpkg/scalar-units';
import { loadZip, TACKER_SAMPLES, tackerSampleFiles, tackerSampleZip, zipFiles, type PackageFiles } from '../support/vnfpkg-fixtures';

const V2_TOP = 'Definitions/v2_sample3_top.vnfd.yaml';
const V2_DF = 'Definitions/v2_sample3_df_simple.yaml';

/** A Tacker sample with some of its text files edited. */
function sampleWith(name: string, edits: Record<string, (text: string) => string>): PackageFiles {
  const files = tackerSampleFiles(name);
  for (const [path, edit] of Object.entries(edits)) files[path] = Buffer.from(edit(files[path].toString('utf8')));
  return files;
}

async function vnfdRejection(files: PackageFiles): Promise<string> {
  try {
    await loadZip(zipFiles(files));
  } catch (err) {
    expect(err).toBeInstanceOf(PackageError);
    return (err as PackageError).reason;
  }
  throw new Error('expected the VNFD to be rejected');
}

/** The sample folders that are VNF packages (kubernetes_mgmt_driver/ holds only Tacker's driver scripts). */
const PACKAGES = readdirSync(TACKER_SAMPLES).filter((name) => existsSync(join(TACKER_SAMPLES, name, 'TOSCA-Metadata')));

describe('every Tacker sample package loads', () => {
  it.each(PACKAGES)('%s', async (name) => {
    const { csar, vnfd } = await loadZip(tackerSampleZip(name));
    expect(vnfd.vnfdId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(vnfd.flavours).length).toBeGreaterThan(0);
    for (const flavour of Object.values(vnfd.flavours)) {
      expect(csar.vnfdFiles).toContain(flavour.sourceFile);
      expect(Object.keys(flavour.vdus).length).toBeGreaterThan(0);
    }
  });
});

describe('v2_userdata_standard', () => {
  let vnfd: Vnfd;
  beforeAll(async () => {
    vnfd = (await loadZip(tackerSampleZip('v2_userdata_standard'))).vnfd;
  });

  it("softwareImages: an image file in the package gives the checksum (its SHA-256) and size the VNFD leaves out; the VNFD's own win", () => {
    const bare = structuredClone(vnfd);
    const storage = bare.flavours.simple.storages['VDU2-VirtualStorage'].swImage!;
    delete storage.checksum;
    delete storage.sizeBytes;
    const files = { 'Files/images/cirros-0.5.2-x86_64-disk.img': { sha256: 'ab'.repeat(32), size: 16_338_944 } };
    const images = softwareImages(bare, '2026-12-06T00:00:00Z', files);
    expect(images.find((i) => i.id === 'VDU2-VirtualStorage')).toMatchObject({ checksum: { algorithm: 'SHA-256', hash: 'ab'.repeat(32) }, size: 16_338_944 });
    expect(images.find((i) => i.id === 'VDU1')).toMatchObject({ checksum: { algorithm: 'sha-256', hash: '932fcae93574e242dc3d772d5235061747dfe537668443a1f0567d893614b464' }, size: 12 * 1024 ** 3 });
    // neither the VNFD nor the package: no checksum (SOL005 wants one; nothing can be said)
    expect(softwareImages(bare, '2026-12-06T00:00:00Z').find((i) => i.id === 'VDU2-VirtualStorage')).not.toHaveProperty('checksum');
  });

  it('reads the VNF identity', async () => {
    expect(vnfd).toMatchObject({
      vnfdId: 'b1bb0ce7-ebca-4fa7-95ed-4840d7000000',
      provider: 'Company',
      productName: 'Sample VNF',
      softwareVersion: '1.0',
      vnfdVersion: '1.0',
      description: 'Sample VNF',
    });
    expect(Object.keys(vnfd.flavours)).toEqual(['simple']);
  });

  it('reads VDUs, storage, CPs and virtual links', async () => {
    const simple = vnfd.flavours.simple;
    expect(simple.sourceFile).toBe(V2_DF);
    expect(simple.description).toBe('A simple flavour');
    expect(simple.vdus.VDU1).toEqual({
      id: 'VDU1',
      name: 'VDU1',
      description: 'VDU1 compute node',
      minInstances: 1,
      maxInstances: 3,
      swImage: {
        name: 'cirros-0.5.2-x86_64-disk',
        version: '0.5.2',
        checksum: { algorithm: 'sha-256', hash: '932fcae93574e242dc3d772d5235061747dfe537668443a1f0567d893614b464' },
        containerFormat: 'bare',
        diskFormat: 'qcow2',
        file: undefined,
        // min_disk 0 GB, min_ram 256 MB, size 12 GB (SOL005's minDisk, minRam and size)
        minDiskGb: 0,
        minRamMb: 256,
        sizeBytes: 12 * 1024 ** 3,
      },
      flavorName: 'm1.tiny',
      virtualCompute: { memSizeMb: 512, numCpus: 1, localStorageGb: [3] },
      storageIds: [],
    });
    expect(simple.vdus.VDU2).toMatchObject({ minInstances: 1, maxInstances: 1, storageIds: ['VDU2-VirtualStorage'] });
    expect(simple.vdus.VDU2.swImage).toBeUndefined();
    expect(simple.storages['VDU2-VirtualStorage']).toMatchObject({
      sizeGb: 1,
      swImage: { name: 'VDU2-VirtualStorage-image', file: 'Files/images/cirros-0.5.2-x86_64-disk.img' },
    });
    expect(simple.cps.VDU1_CP1).toEqual({ id: 'VDU1_CP1', vduId: 'VDU1', virtualLinkId: undefined, order: 0, layerProtocols: ['ipv4'] });
    expect(simple.cps.VDU1_CP2).toMatchObject({ vduId: 'VDU1', virtualLinkId: 'internalVL1', order: 1 });
    expect(Object.keys(simple.cps)).toHaveLength(6);
    expect(simple.virtualLinks.internalVL1).toMatchObject({ layerProtocols: ['ipv4'], cidrs: ['192.168.3.0/24'] });
    expect(simple.virtualLinks.internalVL2.cidrs).toEqual(['192.168.4.0/24']);
    expect(simple.extVirtualLinkRequirements).toEqual({
      virtual_link_external1_1: { cpId: 'VDU1_CP1' },
      virtual_link_external1_2: { cpId: 'VDU2_CP1' },
    });
  });

  it('reads scaling and instantiation-level policies', async () => {
    const simple = vnfd.flavours.simple;
    expect(simple.scalingAspects).toEqual({
      VDU1_scale: { id: 'VDU1_scale', name: 'VDU1_scale', description: 'VDU1 scaling aspect', maxScaleLevel: 2, stepDeltas: ['delta_1'] },
    });
    expect(simple.vduInitialDelta).toEqual({ VDU1: 1, VDU2: 1 });
    expect(simple.vduScalingAspectDeltas).toEqual({ VDU1_scale: { VDU1: { delta_1: 1 } } });
    expect(simple.instantiationLevels).toEqual({
      levels: {
        instantiation_level_1: { description: 'Smallest size', scaleInfo: { VDU1_scale: 0 } },
        instantiation_level_2: { description: 'Largest size', scaleInfo: { VDU1_scale: 1 } },
      },
      defaultLevel: 'instantiation_level_1',
    });
    expect(simple.vduInstantiationLevels).toEqual({
      VDU1: { instantiation_level_1: 1, instantiation_level_2: 2 },
      VDU2: { instantiation_level_1: 1, instantiation_level_2: 1 },
    });
  });

  it('resolves "../Scripts/x.py" hooks relative to the df file', async () => {
    const hooks = vnfd.flavours.simple.hooks;
    expect(Object.keys(hooks).sort()).toEqual([
      'change_external_connectivity_end', 'change_external_connectivity_start',
      'heal_end', 'heal_start', 'instantiate_end', 'instantiate_start',
      'modify_information_end', 'modify_information_start',
      'scale_end', 'scale_start', 'terminate_end', 'terminate_start',
    ]);
    expect(hooks.instantiate_start).toEqual({
      artifact: 'sample-script', file: 'Scripts/sample_script.py', type: 'tosca.artifacts.Implementation.Python',
    });
  });
});

describe('v2_userdata_standard_change_vnfpkg', () => {
  it('puts the image artifact on VDU1 and not on the storage', async () => {
    const { vnfd } = await loadZip(tackerSampleZip('v2_userdata_standard_change_vnfpkg'));
    const simple = vnfd.flavours.simple;
    expect(simple.vdus.VDU1.swImage).toMatchObject({ name: 'VDU1-image', file: 'Files/images/cirros-0.5.2-x86_64-disk.img' });
    expect(simple.storages['VDU2-VirtualStorage'].swImage?.file).toBeUndefined();
  });
});

describe('kubernetes_vnf_package', () => {
  let vnfd: Vnfd;
  beforeAll(async () => {
    vnfd = (await loadZip(tackerSampleZip('kubernetes_vnf_package'))).vnfd;
  });

  it('has one flavour per df file', async () => {
    expect(vnfd.vnfdId).toBe('b1db0ce7-ebca-1fb7-95ed-4840d70a1163');
    expect(Object.fromEntries(Object.values(vnfd.flavours).map((f) => [f.flavourId, f.sourceFile]))).toEqual({
      simple: 'Definitions/sample_kubernetes_df_simple.yaml',
      complex: 'Definitions/sample_kubernetes_df_complex.yaml',
      podaffinity: 'Definitions/sample_kubernetes_df_podaffinity.yaml',
    });
  });

  it('reads flavour-specific VDU profiles, sizes and levels', async () => {
    const { simple, complex } = vnfd.flavours;
    expect(simple.vdus.masterNode).toMatchObject({ minInstances: 1, maxInstances: 3 });
    expect(complex.vdus.masterNode).toMatchObject({
      minInstances: 3,
      maxInstances: 5,
      flavorName: 'm1.medium',
      virtualCompute: { memSizeMb: 4096, numCpus: 2, localStorageGb: [45] },
    });
    expect(complex.vdus.masterNode.swImage).toMatchObject({
      name: 'Image for masterNode HA kubernetes',
      checksum: { algorithm: 'sha-512' },
      file: 'Files/images/ubuntu-20.04-server-cloudimg-amd64.img',
    });
    expect(complex.vduInitialDelta).toEqual({ masterNode: 3, workerNode: 2 });
    expect(Object.keys(complex.scalingAspects)).toEqual(['master_instance', 'worker_instance']);
    expect(complex.vduInstantiationLevels.masterNode).toEqual({ instantiation_level_1: 3, instantiation_level_2: 5 });
  });

  it('resolves "Scripts/x.py" hooks relative to the package root', async () => {
    for (const flavour of Object.values(vnfd.flavours)) {
      expect(Object.keys(flavour.hooks).sort()).toEqual([
        'heal_end', 'heal_start', 'instantiate_end', 'scale_end', 'scale_start', 'terminate_end',
      ]);
      expect(flavour.hooks.instantiate_end).toMatchObject({ artifact: 'mgmt-drivers-kubernetes', file: 'Scripts/kubernetes_mgmt.py' });
    }
  });
});

describe('private_registry_vnf_package', () => {
  it('binds instantiate_end and heal_end to the mgmt driver script', async () => {
    const { vnfd } = await loadZip(tackerSampleZip('private_registry_vnf_package'));
    const simple = vnfd.flavours.simple;
    expect(vnfd.productName).toBe('Sample Private registry VNF');
    expect(simple.hooks).toEqual({
      instantiate_end: { artifact: 'mgmt-drivers-private-registry', file: 'Scripts/private_registry_mgmt.py', type: 'tosca.artifacts.Implementation.Python' },
      heal_end: { artifact: 'mgmt-drivers-private-registry', file: 'Scripts/private_registry_mgmt.py', type: 'tosca.artifacts.Implementation.Python' },
    });
    expect(simple.vdus.PrivateRegistryVDU.flavorName).toBeUndefined();
    expect(simple.extVirtualLinkRequirements).toEqual({ virtual_link_external: { cpId: 'CP1' } });
  });
});

describe('VNF identity from type defaults', () => {
  it('falls back to the derived type\'s property defaults', async () => {
    const files = sampleWith('v2_userdata_standard', {
      [V2_TOP]: (t) => t.replace(/^ {8}(descriptor_id|provider|product_name):.*\n/gm, ''),
    });
    const { vnfd } = await loadZip(zipFiles(files));
    expect(vnfd).toMatchObject({ vnfdId: 'b1bb0ce7-ebca-4fa7-95ed-4840d7000000', provider: 'Company', productName: 'Sample VNF' });
  });
});

describe('invalid VNFDs are rejected', () => {
  const v2 = (edits: Record<string, (text: string) => string>) => vnfdRejection(sampleWith('v2_userdata_standard', edits));

  it('without a VNF node', async () => {
    const noVnf = (t: string) => t.replace(/type: company\.provider\.VNF/g, 'type: company.provider.Other');
    expect(await v2({ [V2_TOP]: noVnf, [V2_DF]: noVnf })).toBe(
      `${V2_TOP}: no node template of type tosca.nodes.nfv.VNF (or a type derived from it)`,
    );
  });

  it('without a flavour', async () => {
    expect(await v2({ [V2_DF]: (t) => t.replace('  substitution_mappings:', '  unused_mappings:') })).toBe(
      `${V2_TOP}: the VNFD defines no deployment flavour (no imported file has topology_template.substitution_mappings)`,
    );
  });

  it('with a CP bound to an unknown VDU', async () => {
    expect(await v2({ [V2_DF]: (t) => t.replace('- virtual_binding: VDU1', '- virtual_binding: VDU9') })).toBe(
      `${V2_DF}: node VDU1_CP1: virtual_binding "VDU9" is not a VDU of this flavour`,
    );
  });

  it('with a CP on an unknown virtual link', async () => {
    expect(await v2({ [V2_DF]: (t) => t.replace('- virtual_link: internalVL2', '- virtual_link: internalVL9') })).toBe(
      `${V2_DF}: node VDU1_CP3: virtual_link "internalVL9" is not a VnfVirtualLink of this flavour`,
    );
  });

  it('with a policy targeting an unknown VDU', async () => {
    expect(await v2({ [V2_DF]: (t) => t.replace('targets: [ VDU2 ]', 'targets: [ VDU7 ]') })).toBe(
      `${V2_DF}: policy VDU2_initial_delta: targets "VDU7", which is not a VDU of this flavour`,
    );
  });

  it('with an instantiation level referring to an unknown aspect', async () => {
    const edit = (t: string) => t.replace(/VDU1_scale:\n( +)scale_level: 1/, 'VDU9_scale:\n$1scale_level: 1');
    expect(await v2({ [V2_DF]: edit })).toBe(
      `${V2_DF}: policy instantiation_levels: level instantiation_level_2: refers to scaling aspect "VDU9_scale", which no ScalingAspects policy of this flavour declares`,
    );
  });

  it('with scaling deltas for an unknown aspect', async () => {
    expect(await v2({ [V2_DF]: (t) => t.replace('aspect: VDU1_scale', 'aspect: VDU3_scale') })).toMatch(
      /policy VDU1_scaling_aspect_deltas: refers to scaling aspect "VDU3_scale"/,
    );
  });

  it('with a VDU level the InstantiationLevels policy does not declare', async () => {
    expect(await v2({ [V2_DF]: (t) => t.replace(/instantiation_level_2:\n( +)number_of_instances: 2/, 'instantiation_level_9:\n$1number_of_instances: 2') }))
      .toBe(`${V2_DF}: policy VDU1_instantiation_levels: refers to instantiation level "instantiation_level_9", which no InstantiationLevels policy of this flavour declares`);
  });

  it('with a VDU missing its vdu_profile', async () => {
    const edit = (t: string) => t.replace(/ +vdu_profile:\n +min_number_of_instances: 1\n +max_number_of_instances: 3\n/, '');
    expect(await v2({ [V2_DF]: edit })).toBe(`${V2_DF}: node VDU1: VDU has no properties.vdu_profile (min/max number of instances)`);
  });

  it('with a hook artifact file missing from the package', async () => {
    const files = tackerSampleFiles('v2_userdata_standard');
    delete files['Scripts/sample_script.py'];
    expect(await vnfdRejection(files)).toBe(
      `${V2_DF}: node VNF: artifact sample-script: artifact file "../Scripts/sample_script.py" is not in the package` +
      ' (looked for Scripts/sample_script.py)',
    );
  });

  it('with a hook naming an undefined artifact', async () => {
    expect(await v2({ [V2_DF]: (t) => t.replace('heal_end:\n            implementation: sample-script', 'heal_end:\n            implementation: nope') }))
      .toBe(`${V2_DF}: node VNF: interfaces.Vnflcm.heal_end uses artifact "nope", which the node does not define under artifacts`);
  });

  it('with two df files declaring the same flavour', async () => {
    const files = sampleWith('kubernetes_vnf_package', {
      'Definitions/sample_kubernetes_df_complex.yaml': (t) => t.replace('flavour_id: complex', 'flavour_id: simple'),
    });
    expect(await vnfdRejection(files)).toBe(
      'Flavour "simple" is defined twice: in Definitions/sample_kubernetes_df_simple.yaml and in Definitions/sample_kubernetes_df_complex.yaml',
    );
  });

  it('with a size that has no unit', async () => {
    expect(await v2({ [V2_DF]: (t) => t.replace('virtual_mem_size: 512 MB', 'virtual_mem_size: 512') })).toBe(
      `${V2_DF}: node VDU1: virtual_memory.virtual_mem_size must be a size such as "512 MB" or "4 GB", got 512`,
    );
  });
});

describe('sizes', () => {
  it.each([
    ['512 MB', 'MB', 512],
    ['4 GB', 'MB', 4096],
    ['2 GiB', 'MB', 2048],
    ['45 GB', 'GB', 45],
    ['512 MB', 'GB', 0.5],
    ['1 TB', 'GB', 1024],
  ] as const)('%s in %s is %d', (text, unit, expected) => {
    expect(sizeIn(unit, text, 'f', 'size')).toBe(expected);
  });
});
