import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { sampleNames, zipFolder } from '../../samples/build';
import type { Vnfd, VnfdFlavour } from '../../vnfpkg';
import { loadZip, sha256 } from '../support/vnfpkg-fixtures';

const SAMPLES = join(__dirname, '../../samples');
const load = (name: string) => loadZip(zipFolder(join(SAMPLES, name)));

describe('product sample packages', () => {
  it('has the two_vdu_vnf and one_vdu_vnf samples', async () => {
    expect(sampleNames(SAMPLES)).toEqual(expect.arrayContaining(['two_vdu_vnf', 'one_vdu_vnf']));
  });

  it.each(sampleNames(SAMPLES))('%s loads', async (name) => {
    expect(Object.keys((await load(name)).vnfd.flavours)).toContain('simple');
  });

  it.each(['two_vdu_vnf', 'one_vdu_vnf'])('%s has no Mgmt Driver hooks', async (name) => {
    const { vnfd } = (await load(name));
    expect(vnfd.provider).toBe('NFVO Samples');
    for (const flavour of Object.values(vnfd.flavours)) expect(flavour.hooks).toEqual({});
  });

  it('private_registry_vnf is seed 000\'s VNF, its hooks naming Tacker\'s driver file', async () => {
    const { vnfd } = await load('private_registry_vnf');
    expect(vnfd.vnfdId).toBe('c1bb0ce7-ebca-4fa7-95ed-4840d70a118f');
    expect(vnfd.productName).toBe('Sample Private registry VNF');
    expect(vnfd.flavours.simple.hooks.instantiate_end?.file).toBe('Scripts/private_registry_mgmt.py');
    expect(vnfd.flavours.simple.hooks.heal_end?.file).toBe('Scripts/private_registry_mgmt.py');
  });

  it('zips reproducibly', async () => {
    expect(zipFolder(join(SAMPLES, 'two_vdu_vnf')).equals(zipFolder(join(SAMPLES, 'two_vdu_vnf')))).toBe(true);
  });
});

describe('two_vdu_vnf', () => {
  let loaded: Awaited<ReturnType<typeof load>>;
  let vnfd: Vnfd;
  let simple: VnfdFlavour;
  beforeAll(async () => {
    loaded = await load('two_vdu_vnf');
    vnfd = loaded.vnfd;
    simple = vnfd.flavours.simple;
  });

  it('has a scalable VDU1 and a fixed VDU2 with block storage', async () => {
    expect(vnfd.productName).toBe('Two VDU VNF');
    expect(simple.vdus.VDU1).toMatchObject({ minInstances: 1, maxInstances: 3, flavorName: 'm1.tiny' });
    expect(simple.vdus.VDU2).toMatchObject({ minInstances: 1, maxInstances: 1, storageIds: ['VDU2-VirtualStorage'] });
    expect(simple.storages['VDU2-VirtualStorage']).toMatchObject({ sizeGb: 1 });
  });

  it('has external CPs mapped in substitution_mappings and internal CPs on one VL', async () => {
    expect(simple.extVirtualLinkRequirements).toEqual({
      virtual_link_external1_1: { cpId: 'VDU1_CP1' },
      virtual_link_external1_2: { cpId: 'VDU2_CP1' },
    });
    expect(simple.cps.VDU1_CP2.virtualLinkId).toBe('internalVL1');
    expect(simple.cps.VDU2_CP2.virtualLinkId).toBe('internalVL1');
    expect(simple.virtualLinks.internalVL1.cidrs).toEqual(['192.168.10.0/24']);
  });

  it('has a scaling aspect with deltas and two instantiation levels', async () => {
    expect(simple.scalingAspects.VDU1_scale.maxScaleLevel).toBe(2);
    expect(simple.vduScalingAspectDeltas).toEqual({ VDU1_scale: { VDU1: { delta_1: 1 } } });
    expect(Object.keys(simple.instantiationLevels.levels)).toEqual(['instantiation_level_1', 'instantiation_level_2']);
    expect(simple.vduInstantiationLevels.VDU1).toEqual({ instantiation_level_1: 1, instantiation_level_2: 3 });
  });

  it('lists its image in TOSCA.meta with the real hash, matching sw_image_data', async () => {
    const image = simple.vdus.VDU1.swImage!;
    expect(image.file).toBe('Files/images/two_vdu_vnf-image.img');
    const hash = sha256(await loaded.file(image.file!));
    expect(loaded.csar.files[image.file!].sha256).toBe(hash);
    expect(loaded.csar.meta.entries).toEqual([expect.objectContaining({ name: image.file, algorithm: 'SHA-256', hash })]);
    expect(image.checksum).toEqual({ algorithm: 'sha-256', hash });
  });

  it('has a StandardUserData-style BaseHOT whose resources match the VNFD', async () => {
    const hot = async (path: string) => parseYaml((await loaded.file(`BaseHOT/simple/${path}`)).toString('utf8'));
    const top = await hot('two_vdu_vnf.yaml');
    expect(top.parameters).toEqual({ nfv: { type: 'json' } });
    expect(top.resources.VDU1.type).toBe('VDU1.yaml');
    expect(top.resources.VDU1.properties.flavor).toEqual({ get_param: ['nfv', 'VDU', 'VDU1', 'computeFlavourId'] });
    expect(top.resources.VDU2.properties.net1).toEqual({ get_param: ['nfv', 'CP', 'VDU2_CP1', 'network'] });
    expect(top.resources.internalVL1_subnet.properties.cidr).toBe(simple.virtualLinks.internalVL1.cidrs[0]);
    for (const vdu of ['VDU1', 'VDU2']) {
      const nested = await hot(`nested/${vdu}.yaml`);
      expect(nested.resources[vdu].type).toBe('OS::Nova::Server');
      // every parameter the top template passes is declared by the nested template
      expect(Object.keys(nested.parameters).sort()).toEqual(Object.keys(top.resources[vdu].properties).sort());
    }
  });
});

describe('one_vdu_vnf', () => {
  it('has one VDU, one external CP and no BaseHOT', async () => {
    const { csar, vnfd } = await load('one_vdu_vnf');
    const simple = vnfd.flavours.simple;
    expect(Object.keys(simple.vdus)).toEqual(['VDU1']);
    expect(simple.extVirtualLinkRequirements).toEqual({ virtual_link_external: { cpId: 'VDU1_CP1' } });
    expect(simple.instantiationLevels.defaultLevel).toBe('instantiation_level_1');
    expect(Object.keys(csar.files).some((p) => p.startsWith('BaseHOT/'))).toBe(false);
  });
});
