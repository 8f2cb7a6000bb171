/**
 * instantiatedVnfInfo from a Heat resource list (infra/vnf-info), for the
 * stack infra/hot builds from Tacker's v2_userdata_standard sample at
 * instantiation_level_2, written the way Heat lists it with nested_depth=2.
 */
import { buildInstantiatedVnfInfo, type HeatResource, type InstantiatedVnfInfo } from '../../infra/vnf-info';
import type { InstantiateInput } from '../../infra/hot';
import type { VnfdFlavour } from '../../model/vnfd';
import { v2Flavour } from '../support/v2-flavour';
import { vimCpProtocol, type VimPort } from '../../infra/vnf-info/cp-protocol';

const VIM = 'vim-1';

const input: InstantiateInput = {
  flavourId: 'simple',
  instantiationLevelId: 'instantiation_level_2',
  extVirtualLinks: [
    { id: 'ext1', resourceId: 'net-ext-1', extCps: [{ cpdId: 'VDU1_CP1', cpConfig: { VDU1_CP1_1: { cpProtocolData: [{ layerProtocol: 'IP_OVER_ETHERNET' }] } } }] },
    {
      id: 'ext2', resourceId: 'net-ext-2',
      extCps: [{ cpdId: 'VDU2_CP1', cpConfig: { VDU2_CP1_1: { cpProtocolData: [{ layerProtocol: 'IP_OVER_ETHERNET', ipOverEthernet: { ipAddresses: [{ type: 'IPV4', numDynamicAddresses: 1, subnetId: 'subnet-ext-2' }] } }] } } }],
    },
  ],
  additionalParams: { lcm: 'param' },
};

// ---- Heat's resource list ---------------------------------------------------------------

const HEAT = 'http://heat:8004/v1/tenant-1/stacks';
const TOP = { name: 'vnf-inst-1', id: 'top-stack' };
const link = (rel: string, stack: { name: string; id: string }, resource?: string) =>
  ({ rel, href: `${HEAT}/${stack.name}/${stack.id}${resource ? `/resources/${resource}` : ''}` });

function resource(name: string, type: string, physicalId: string, stack: { name: string; id: string }, parent?: string, more: Partial<HeatResource> = {}): HeatResource {
  return {
    resource_name: name, physical_resource_id: physicalId, resource_type: type, resource_status: 'CREATE_COMPLETE',
    ...(parent ? { parent_resource: parent } : {}), links: [link('self', stack, name), link('stack', stack)], required_by: [], ...more,
  };
}

/** A VNFC of the StandardUserData stack: the top resource "VDU1-0" and, one level down, its nested stack. */
function vnfc(vduId: string, index: number, tag = ''): HeatResource[] {
  const name = `${vduId}-${index}`;
  const nested = { name: `${TOP.name}-${name}-x7k2`, id: `stack-${name}` };
  const p = (s: string) => `${s}-${name}${tag}`;
  const cps = [1, 2, 3].map((n) => resource(`${vduId}_CP${n}`, 'OS::Neutron::Port', p(`port-cp${n}`), nested, name, { required_by: [vduId] }));
  const own = vduId === 'VDU2'
    ? [resource('VDU2-VirtualStorage', 'OS::Cinder::Volume', p('vol'), nested, name, { required_by: [vduId] }), resource('multi', 'OS::Cinder::VolumeType', p('voltype'), nested, name)]
    : [];
  return [
    { ...resource(name, `${vduId}.yaml`, nested.id, TOP), links: [link('self', TOP, name), link('stack', TOP), link('nested', nested)] },
    resource(vduId, 'OS::Nova::Server', p('server'), nested, name),
    ...own,
    ...cps,
  ];
}

const networks = (): HeatResource[] => [
  resource('internalVL1', 'OS::Neutron::Net', 'net-int-1', TOP),
  resource('internalVL2', 'OS::Neutron::Net', 'net-int-2', TOP),
  resource('internalVL1_subnet', 'OS::Neutron::Subnet', 'subnet-int-1', TOP),
  resource('internalVL2_subnet', 'OS::Neutron::Subnet', 'subnet-int-2', TOP),
  resource('nfvi_node_affinity', 'OS::Nova::ServerGroup', 'sg-1', TOP),
];

/** Heat lists in no VNFD order: VDU2 first, VDU1-1 before VDU1-0. */
const level2Resources = () => [...vnfc('VDU2', 0), ...networks(), ...vnfc('VDU1', 1), ...vnfc('VDU1', 0)];

function idSource(prefix = 'id') {
  let n = 0;
  const newId = () => `${prefix}-${++n}`;
  return { newId, count: () => n };
}

const build = (resources: HeatResource[], over: { previous?: InstantiatedVnfInfo; scaleStatus?: { aspectId: string; scaleLevel: number }[]; ports?: Record<string, VimPort> } = {}, ids = idSource()) =>
  buildInstantiatedVnfInfo({ flavour: v2Flavour(), input, vimConnectionId: VIM, resources, newId: ids.newId, ...over });

const handle = (resourceId: string, vimLevelResourceType: string) => ({ vimConnectionId: VIM, resourceId, vimLevelResourceType });

// ---- tests --------------------------------------------------------------------------------

describe('instantiatedVnfInfo after instantiate', () => {
  const info = build(level2Resources());
  const vnfcNamed = (n: string) => info.vnfcResourceInfo.find((v) => v.metadata.heatResourceName === n)!;

  test('top-level fields', () => {
    expect(info.flavourId).toBe('simple');
    expect(info.vnfState).toBe('STARTED');
    expect(info.scaleStatus).toEqual([{ aspectId: 'VDU1_scale', scaleLevel: 1 }]);
    expect(info.additionalParams).toEqual({ lcm: 'param' });
    expect(info.extManagedVirtualLinkInfo).toBeUndefined();
  });

  test('vnfcResourceInfo: one per server, by VDU then index, with the nested stack it lives in', () => {
    expect(info.vnfcResourceInfo.map((v) => [v.vduId, v.metadata.heatResourceName, v.computeResource.resourceId])).toEqual([
      ['VDU1', 'VDU1-0', 'server-VDU1-0'], ['VDU1', 'VDU1-1', 'server-VDU1-1'], ['VDU2', 'VDU2-0', 'server-VDU2-0'],
    ]);
    const v = vnfcNamed('VDU1-0');
    expect(v.computeResource).toEqual(handle('server-VDU1-0', 'OS::Nova::Server'));
    expect(v.metadata).toEqual({ heatResourceName: 'VDU1-0', stackId: 'vnf-inst-1-VDU1-0-x7k2/stack-VDU1-0' });
    expect(v.storageResourceIds).toEqual([]);
    expect(v.vnfcCpInfo.map((c) => c.cpdId)).toEqual(['VDU1_CP1', 'VDU1_CP2', 'VDU1_CP3']);
  });

  test('vnfcInfo: one per VNFC, pointing at its vnfcResourceInfo', () => {
    expect(info.vnfcInfo).toEqual(info.vnfcResourceInfo.map((v) => ({ id: expect.any(String), vduId: v.vduId, vnfcResourceInfoId: v.id, vnfcState: 'STARTED' })));
  });

  test('external CPs: extCpInfo <-> vnfcCpInfo <-> extLinkPorts of the request\'s ext VL', () => {
    const v = vnfcNamed('VDU1-1');
    const cp1 = v.vnfcCpInfo[0];
    const ext = info.extCpInfo.find((e) => e.associatedVnfcCpId === cp1.id)!;
    expect(cp1).toEqual({ id: cp1.id, cpdId: 'VDU1_CP1', vnfExtCpId: ext.id, cpProtocolInfo: [{ layerProtocol: 'IP_OVER_ETHERNET' }] });
    expect(ext).toEqual({
      id: ext.id, cpdId: 'VDU1_CP1', cpConfigId: 'VDU1_CP1_1', extLinkPortId: expect.any(String), associatedVnfcCpId: cp1.id,
      cpProtocolInfo: [{ layerProtocol: 'IP_OVER_ETHERNET' }],
    });
    expect(info.extCpInfo.map((e) => e.cpdId)).toEqual(['VDU1_CP1', 'VDU1_CP1', 'VDU2_CP1']);

    const [ext1, ext2] = info.extVirtualLinkInfo;
    expect(ext1).toEqual({
      id: 'ext1', resourceHandle: handle('net-ext-1', 'OS::Neutron::Net'), currentVnfExtCpData: input.extVirtualLinks![0].extCps,
      extLinkPorts: [
        { id: expect.any(String), resourceHandle: handle('port-cp1-VDU1-0', 'OS::Neutron::Port'), cpInstanceId: info.extCpInfo[0].id },
        { id: ext.extLinkPortId, resourceHandle: handle('port-cp1-VDU1-1', 'OS::Neutron::Port'), cpInstanceId: ext.id },
      ],
    });
    expect(ext2.extLinkPorts).toEqual([{ id: info.extCpInfo[2].extLinkPortId, resourceHandle: handle('port-cp1-VDU2-0', 'OS::Neutron::Port'), cpInstanceId: info.extCpInfo[2].id }]);
    // The requested address data becomes the CP's protocol info.
    expect(info.extCpInfo[2].cpProtocolInfo).toEqual([
      { layerProtocol: 'IP_OVER_ETHERNET', ipOverEthernet: { ipAddresses: [{ type: 'IPV4', isDynamic: true, subnetId: 'subnet-ext-2' }] } },
    ]);
  });

  test('internal VLs: the stack\'s networks, with one link port per VNFC CP on them', () => {
    expect(info.vnfVirtualLinkResourceInfo.map((vl) => [vl.vnfVirtualLinkDescId, vl.networkResource])).toEqual([
      ['internalVL1', handle('net-int-1', 'OS::Neutron::Net')], ['internalVL2', handle('net-int-2', 'OS::Neutron::Net')],
    ]);
    const vl1 = info.vnfVirtualLinkResourceInfo[0];
    expect(vl1.vnfLinkPorts.map((p) => p.resourceHandle)).toEqual([
      handle('port-cp2-VDU1-0', 'OS::Neutron::Port'), handle('port-cp2-VDU1-1', 'OS::Neutron::Port'), handle('port-cp2-VDU2-0', 'OS::Neutron::Port'),
    ]);
    const cp2 = vnfcNamed('VDU2-0').vnfcCpInfo[1];
    expect(cp2).toEqual({ id: cp2.id, cpdId: 'VDU2_CP2', vnfLinkPortId: vl1.vnfLinkPorts[2].id, cpProtocolInfo: [{ layerProtocol: 'IP_OVER_ETHERNET' }] });
    expect(vl1.vnfLinkPorts[2]).toEqual({ id: cp2.vnfLinkPortId, resourceHandle: handle('port-cp2-VDU2-0', 'OS::Neutron::Port'), cpInstanceId: cp2.id, cpInstanceType: 'VNFC_CP' });
  });

  test('storage: the VDU2 volume, referenced from its VNFC', () => {
    expect(info.virtualStorageResourceInfo).toEqual([
      { id: expect.any(String), virtualStorageDescId: 'VDU2-VirtualStorage', storageResource: handle('vol-VDU2-0', 'OS::Cinder::Volume') },
    ]);
    expect(vnfcNamed('VDU2-0').storageResourceIds).toEqual([info.virtualStorageResourceInfo[0].id]);
  });

  test('every id is distinct and comes from newId (deterministic for the same inputs)', () => {
    const ids = idSource();
    const again = build(level2Resources(), {}, ids);
    expect(again).toEqual(info);
    const all = JSON.stringify(info).match(/"id":"[^"]+"/g)!.filter((s) => s.startsWith('"id":"id-'));
    expect(new Set(all).size).toBe(all.length);
    // 3 VNFCs x (vnfc + vnfcInfo + 3 CPs + 3 ports) + 3 ext CPs + 1 volume + 2 VLs
    expect(ids.count()).toBe(3 * 8 + 3 + 1 + 2);
  });

  test('scaleStatus given by the caller wins over the level', () => {
    expect(build(level2Resources(), { scaleStatus: [{ aspectId: 'VDU1_scale', scaleLevel: 2 }] }).scaleStatus).toEqual([{ aspectId: 'VDU1_scale', scaleLevel: 2 }]);
  });
});

describe('addresses the VIM assigned', () => {
  // what Neutron says of two of the ports (the others the activity did not find: they show what was asked)
  const ports: Record<string, VimPort> = {
    'port-cp1-VDU2-0': { macAddress: 'fa:16:3e:00:00:02', fixedIps: [{ ipAddress: '10.2.0.7', subnetId: 'subnet-ext-2' }, { ipAddress: 'fd00::7', subnetId: 'subnet-v6' }] },
    'port-cp2-VDU1-0': { macAddress: 'fa:16:3e:00:00:12', fixedIps: [{ ipAddress: '192.168.3.5', subnetId: 'subnet-int-1' }] },
  };
  const info = build(level2Resources(), { ports });
  const cp = (name: string, cpdId: string) => info.vnfcResourceInfo.find((v) => v.metadata.heatResourceName === name)!.vnfcCpInfo.find((c) => c.cpdId === cpdId)!;

  test('an external CP shows its port\'s MAC and fixed IPs, dynamic ones marked, in vnfcCpInfo and extCpInfo alike', () => {
    const expected = [{
      layerProtocol: 'IP_OVER_ETHERNET', ipOverEthernet: {
        macAddress: 'fa:16:3e:00:00:02',
        ipAddresses: [{ type: 'IPV4', addresses: ['10.2.0.7'], isDynamic: true, subnetId: 'subnet-ext-2' }, { type: 'IPV6', addresses: ['fd00::7'], isDynamic: true, subnetId: 'subnet-v6' }],
      },
    }];
    const vdu2 = cp('VDU2-0', 'VDU2_CP1');
    expect(vdu2.cpProtocolInfo).toEqual(expected);
    expect(info.extCpInfo.find((e) => e.associatedVnfcCpId === vdu2.id)!.cpProtocolInfo).toEqual(expected);
  });

  test('an internal CP shows its address too; a CP whose port the VIM did not report keeps the requested data', () => {
    expect(cp('VDU1-0', 'VDU1_CP2').cpProtocolInfo).toEqual([{
      layerProtocol: 'IP_OVER_ETHERNET', ipOverEthernet: { macAddress: 'fa:16:3e:00:00:12', ipAddresses: [{ type: 'IPV4', addresses: ['192.168.3.5'], isDynamic: true, subnetId: 'subnet-int-1' }] },
    }]);
    expect(cp('VDU1-1', 'VDU1_CP2').cpProtocolInfo).toEqual([{ layerProtocol: 'IP_OVER_ETHERNET' }]);
  });

  test('an address the request fixed is not dynamic', () => {
    expect(vimCpProtocol({ fixedIps: [{ ipAddress: '10.0.0.9' }] }, [{ layerProtocol: 'IP_OVER_ETHERNET', ipOverEthernet: { segmentationId: '42', ipAddresses: [{ type: 'IPV4', addresses: ['10.0.0.9'] }] } }]))
      .toEqual([{ layerProtocol: 'IP_OVER_ETHERNET', ipOverEthernet: { segmentationId: '42', ipAddresses: [{ type: 'IPV4', addresses: ['10.0.0.9'] }] } }]);
  });
});

describe('rebuilt with `previous`', () => {
  const before = build(level2Resources());

  test('heal of one VNFC: same ids everywhere, only that server\'s resourceId changes', () => {
    const healed = level2Resources().map((r) => (r.physical_resource_id === 'server-VDU1-1' ? { ...r, physical_resource_id: 'server-VDU1-1-new' } : r));
    const ids = idSource();
    const after = build(healed, { previous: before }, ids);
    expect(ids.count()).toBe(0);
    const expected = structuredClone(before);
    expected.vnfcResourceInfo[1].computeResource.resourceId = 'server-VDU1-1-new';
    expect(after).toEqual(expected);
    expect(after.vnfcInfo[1].id).toBe(before.vnfcInfo[1].id);
  });

  test('whole heal (new stack, new physical ids): VNFCs keep their ids by Heat resource name', () => {
    const recreated = [...vnfc('VDU1', 0, '-b'), ...vnfc('VDU1', 1, '-b'), ...vnfc('VDU2', 0, '-b'), ...networks()];
    const after = build(recreated, { previous: before }, idSource());
    expect(after.vnfcInfo.map((v) => v.id)).toEqual(before.vnfcInfo.map((v) => v.id));
    expect(after.vnfcResourceInfo.map((v) => v.computeResource.resourceId)).toEqual(['server-VDU1-0-b', 'server-VDU1-1-b', 'server-VDU2-0-b']);
    expect(after.extCpInfo.map((e) => e.id)).toEqual(before.extCpInfo.map((e) => e.id));
    expect(after.virtualStorageResourceInfo.map((s) => [s.id, s.storageResource.resourceId])).toEqual([[before.virtualStorageResourceInfo[0].id, 'vol-VDU2-0-b']]);
  });

  test('scale-out: VDU1-2 gets new ids, in order after VDU1-1; the others keep theirs', () => {
    const ids = idSource('new');
    const after = build([...level2Resources(), ...vnfc('VDU1', 2)], { previous: before, scaleStatus: [{ aspectId: 'VDU1_scale', scaleLevel: 2 }] }, ids);
    expect(after.vnfcResourceInfo.map((v) => v.metadata.heatResourceName)).toEqual(['VDU1-0', 'VDU1-1', 'VDU1-2', 'VDU2-0']);
    const added = after.vnfcResourceInfo[2];
    const oldIds = new Set(JSON.stringify(before).match(/id-\d+/g));
    expect(oldIds.has(added.id)).toBe(false);
    expect(added.vnfcCpInfo.every((c) => !oldIds.has(c.id))).toBe(true);
    expect(ids.count()).toBe(8 + 1); // its vnfc, vnfcInfo, 3 CPs, 3 ports + 1 ext CP
    for (const i of [0, 1, 3]) expect(after.vnfcResourceInfo[i]).toEqual(before.vnfcResourceInfo[i === 3 ? 2 : i]);
    expect(after.vnfVirtualLinkResourceInfo[0].vnfLinkPorts).toHaveLength(4);
    expect(after.extVirtualLinkInfo[0].extLinkPorts).toHaveLength(3);
    expect(after.scaleStatus).toEqual([{ aspectId: 'VDU1_scale', scaleLevel: 2 }]);
  });

  test('scale-in: the removed VNFC and its ports disappear; the rest is unchanged', () => {
    const remaining = level2Resources().filter((r) => !(r.parent_resource === 'VDU1-1' || r.resource_name === 'VDU1-1'));
    const after = build(remaining, { previous: before, scaleStatus: [{ aspectId: 'VDU1_scale', scaleLevel: 0 }] }, idSource());
    expect(after.vnfcResourceInfo).toEqual([before.vnfcResourceInfo[0], before.vnfcResourceInfo[2]]);
    expect(after.vnfcInfo).toEqual([before.vnfcInfo[0], before.vnfcInfo[2]]);
    expect(after.extCpInfo).toEqual([before.extCpInfo[0], before.extCpInfo[2]]);
    expect(after.vnfVirtualLinkResourceInfo[0].vnfLinkPorts.map((p) => p.resourceHandle.resourceId)).toEqual(['port-cp2-VDU1-0', 'port-cp2-VDU2-0']);
  });
});

describe('other stack shapes', () => {
  test('without links, resources group by parent_resource and stackId is the nested stack id', () => {
    const bare = level2Resources().map(({ links: _links, ...r }) => r);
    const info = build(bare);
    expect(info.vnfcResourceInfo.map((v) => v.metadata)).toEqual([
      { heatResourceName: 'VDU1-0', stackId: 'stack-VDU1-0' }, { heatResourceName: 'VDU1-1', stackId: 'stack-VDU1-1' }, { heatResourceName: 'VDU2-0', stackId: 'stack-VDU2-0' },
    ]);
    expect(info.vnfVirtualLinkResourceInfo[0].vnfLinkPorts).toHaveLength(3);
  });

  test('AutoScalingGroup members (kubernetes sample): the member name is the VNFC identity', () => {
    const flavour: VnfdFlavour = {
      ...v2Flavour(),
      vdus: { masterNode: { id: 'masterNode', name: 'masterNode', minInstances: 1, maxInstances: 3, flavorName: 'm1.medium', virtualCompute: {}, storageIds: [] } },
      storages: {}, virtualLinks: {},
      cps: { masterNode_CP1: { id: 'masterNode_CP1', vduId: 'masterNode', order: 0, layerProtocols: ['ipv4'] } },
      scalingAspects: {}, vduScalingAspectDeltas: {},
    };
    const asgStack = { name: `${TOP.name}-master_instance-abc`, id: 'asg-stack' };
    const member = (m: string) => {
      const stack = { name: `${asgStack.name}-${m}-def`, id: `member-${m}` };
      return [
        { ...resource(m, 'simple_nested_master.yaml', stack.id, asgStack, 'master_instance'), links: [link('stack', asgStack), link('nested', stack)] },
        resource('masterNode', 'OS::Nova::Server', `server-${m}`, stack, m),
        resource('masterNode_CP1', 'OS::Neutron::Port', `port-${m}`, stack, m),
      ];
    };
    const resources = [resource('master_instance', 'OS::Heat::AutoScalingGroup', asgStack.id, TOP), ...member('zq3ab'), ...member('k1cde')];
    const asgInput: InstantiateInput = { flavourId: 'simple', extVirtualLinks: [{ id: 'net0', resourceId: 'net-k8s', extCps: [{ cpdId: 'masterNode_CP1' }] }] };
    const info = buildInstantiatedVnfInfo({ flavour, input: asgInput, vimConnectionId: VIM, resources, newId: idSource().newId });
    expect(info.vnfcResourceInfo.map((v) => [v.metadata.heatResourceName, v.computeResource.resourceId, v.metadata.stackId])).toEqual([
      ['k1cde', 'server-k1cde', `${asgStack.name}-k1cde-def/member-k1cde`], ['zq3ab', 'server-zq3ab', `${asgStack.name}-zq3ab-def/member-zq3ab`],
    ]);
    expect(info.extVirtualLinkInfo[0].extLinkPorts!.map((p) => p.resourceHandle.resourceId)).toEqual(['port-k1cde', 'port-zq3ab']);
    expect(info.vnfVirtualLinkResourceInfo).toEqual([]);
    expect(info.scaleStatus).toEqual([]);
  });

  test('extManagedVirtualLinks: ports of CPs on a managed VL are listed under extManagedVirtualLinkInfo', () => {
    const managed: InstantiateInput = { ...input, extManagedVirtualLinks: [{ id: 'mgd1', vnfVirtualLinkDescId: 'internalVL1', resourceId: 'net-mgd' }] };
    const resources = level2Resources().filter((r) => !r.resource_name.startsWith('internalVL1'));
    const info = buildInstantiatedVnfInfo({ flavour: v2Flavour(), input: managed, vimConnectionId: VIM, resources, newId: idSource().newId });
    expect(info.vnfVirtualLinkResourceInfo.map((v) => v.vnfVirtualLinkDescId)).toEqual(['internalVL2']);
    expect(info.extManagedVirtualLinkInfo).toEqual([{
      id: 'mgd1', vnfVirtualLinkDescId: 'internalVL1', networkResource: handle('net-mgd', 'OS::Neutron::Net'),
      vnfLinkPorts: ['VDU1-0', 'VDU1-1', 'VDU2-0'].map((n) => expect.objectContaining({ resourceHandle: handle(`port-cp2-${n}`, 'OS::Neutron::Port'), cpInstanceType: 'VNFC_CP' })),
    }]);
  });
});
