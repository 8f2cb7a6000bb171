/**
 * Stack create/read/delete through the Heat API with a Tacker BaseHOT-style
 * template: nested template files, a json `nfv` parameter read with
 * get_param paths, internal networks and ports.
 */
import type { VimSim } from '../vimsim/server';
import { admin, HeatTestClient, holdingStack, startTestSim } from './vimsim-helpers';

const TOP = `
heat_template_version: 2013-05-23
description: BaseHOT-like top template
parameters:
  nfv:
    type: json
resources:
  VDU1-0:
    type: VDU1.yaml
    properties:
      flavor: { get_param: [ nfv, VDU, VDU1-0, computeFlavourId ] }
      image: { get_param: [ nfv, VDU, VDU1-0, vcImageId ] }
      name: { get_param: [ nfv, VDU, VDU1-0, name ] }
      net1: { get_param: [ nfv, CP, VDU1_CP1-0, network ] }
      subnet1: { get_param: [ nfv, CP, VDU1_CP1-0, fixed_ips, 0, subnet ] }
      net2: { get_resource: internalVL1 }
  VDU1-1:
    type: VDU1.yaml
    properties:
      flavor: { get_param: [ nfv, VDU, VDU1-1, computeFlavourId ] }
      image: { get_param: [ nfv, VDU, VDU1-1, vcImageId ] }
      name: { get_param: [ nfv, VDU, VDU1-1, name ] }
      net1: { get_param: [ nfv, CP, VDU1_CP1-1, network ] }
      subnet1: { get_param: [ nfv, CP, VDU1_CP1-1, fixed_ips, 0, subnet ] }
      net2: { get_resource: internalVL1 }
  internalVL1:
    type: OS::Neutron::Net
  internalVL1_subnet:
    type: OS::Neutron::Subnet
    properties:
      ip_version: 4
      network: { get_resource: internalVL1 }
      cidr: 192.168.3.0/24
outputs:
  vdu0_internal_ip:
    value: { get_attr: [ VDU1-0, cp2_ip ] }
  joined:
    value: { list_join: [ '-', [ { get_param: OS::stack_name }, 'x' ] ] }
`;

const NESTED = `
heat_template_version: 2013-05-23
parameters:
  flavor: { type: string }
  image: { type: string }
  name: { type: string }
  net1: { type: string }
  subnet1: { type: string }
  net2: { type: string }
resources:
  VDU1:
    type: OS::Nova::Server
    properties:
      flavor: { get_param: flavor }
      image: { get_param: image }
      name: { get_param: name }
      networks:
        - port: { get_resource: VDU1_CP1 }
        - port: { get_resource: VDU1_CP2 }
  VDU1_CP1:
    type: OS::Neutron::Port
    properties:
      network: { get_param: net1 }
      fixed_ips:
        - subnet: { get_param: subnet1 }
  VDU1_CP2:
    type: OS::Neutron::Port
    properties:
      network: { get_param: net2 }
outputs:
  cp2_ip:
    value: { get_attr: [ VDU1_CP2, fixed_ips, 0, ip_address ] }
`;

const EXT_NET = 'f1a2b3c4-0000-4000-8000-00000000ext1';
const EXT_SUBNET = 'f1a2b3c4-0000-4000-8000-0000000sub1';

function nfv(flavor = 'm1.tiny') {
  const vdu = (i: number) => ({ computeFlavourId: flavor, vcImageId: `image-${i}`, name: `VDU1-${i}` });
  const cp = { network: EXT_NET, fixed_ips: [{ subnet: EXT_SUBNET }] };
  return { VDU: { 'VDU1-0': vdu(0), 'VDU1-1': vdu(1) }, CP: { 'VDU1_CP1-0': cp, 'VDU1_CP1-1': cp } };
}

function createBody(name: string, extra: Record<string, unknown> = {}) {
  return { stack_name: name, template: TOP, files: { 'VDU1.yaml': NESTED }, parameters: { nfv: nfv() }, ...extra };
}

function inCidr(ip: string, prefix: string): boolean {
  return ip.startsWith(prefix);
}

describe('vimsim stacks', () => {
  let sim: VimSim;
  let heat: HeatTestClient;

  beforeAll(async () => {
    sim = await startTestSim({ delayMs: 250 });
    heat = await HeatTestClient.connect(sim);
  });
  afterAll(async () => {
    await sim.close();
  });

  it('creates a nested BaseHOT-style stack and reports it like Heat', async () => {
    const created = await heat.createStack(createBody('vnf-basic'));
    const first = await heat.stack(`vnf-basic/${created.id}`);
    expect(first.stack_status).toBe('CREATE_IN_PROGRESS');

    const stack = await heat.waitFor('vnf-basic', ['CREATE_COMPLETE']);
    expect(stack.id).toBe(created.id);
    expect(stack.stack_status_reason).toBe('Stack CREATE completed successfully');
    expect(JSON.parse(stack.parameters.nfv)).toEqual(nfv());
    expect(stack.parameters['OS::stack_name']).toBe('vnf-basic');
    expect(stack.outputs.find((o: any) => o.output_key === 'joined').output_value).toBe('vnf-basic-x');

    // Lookup by name answers with a redirect to the canonical URL.
    const lookup = await heat.call('GET', 'stacks/vnf-basic', undefined, 'manual');
    expect(lookup.status).toBe(302);
    expect(lookup.headers.get('location')).toBe(`${heat.heatUrl}/stacks/vnf-basic/${created.id}`);

    const resources = await heat.resources('vnf-basic', 2);
    const top = resources.filter((r) => r.parent_resource === undefined).map((r) => r.resource_name).sort();
    expect(top).toEqual(['VDU1-0', 'VDU1-1', 'internalVL1', 'internalVL1_subnet']);
    for (const r of resources) expect(r.resource_status).toBe('CREATE_COMPLETE');

    const vdu0 = resources.find((r) => r.resource_name === 'VDU1-0');
    expect(vdu0.resource_type).toBe('VDU1.yaml');
    const nestedLink = vdu0.links.find((l: any) => l.rel === 'nested').href as string;
    expect(nestedLink).toContain(`/stacks/vnf-basic-VDU1-0-`);
    expect(nestedLink.split('/').pop()).toBe(vdu0.physical_resource_id);

    const servers = resources.filter((r) => r.resource_type === 'OS::Nova::Server');
    expect(servers.map((s) => s.parent_resource).sort()).toEqual(['VDU1-0', 'VDU1-1']);
    const ports = resources.filter((r) => r.resource_type === 'OS::Neutron::Port');
    expect(ports).toHaveLength(4);

    // Internal ports get addresses from the subnet's CIDR; external ones from the SSH pool.
    const internalIps = new Set<string>();
    for (const port of ports) {
      const detail = await heat.resource(holdingStack(port), port.resource_name);
      const [fixed] = detail.attributes.fixed_ips;
      if (port.resource_name === 'VDU1_CP2') {
        expect(inCidr(fixed.ip_address, '192.168.3.')).toBe(true);
        internalIps.add(fixed.ip_address);
      } else {
        expect(inCidr(fixed.ip_address, '127.20.')).toBe(true);
        expect(fixed.subnet_id).toBe(EXT_SUBNET);
        expect(detail.attributes.network_id).toBe(EXT_NET);
      }
      expect(detail.attributes.mac_address).toMatch(/^fa:16:3e(:[0-9a-f]{2}){3}$/);
    }
    expect(internalIps.size).toBe(2);

    const server = await heat.resource(holdingStack(servers[0]), 'VDU1');
    expect(server.attributes.first_address).toMatch(/^127\.20\./);
    expect(server.attributes.flavor).toBe('m1.tiny');
    expect(Object.keys(server.attributes.addresses)).toContain(EXT_NET);
    expect(server.attributes.name).toBe(servers[0].parent_resource);

    const vdu0Nested = resources.find((r) => r.parent_resource === 'VDU1-0' && r.resource_name === 'VDU1_CP2');
    const vdu0Cp2 = await heat.resource(holdingStack(vdu0Nested), 'VDU1_CP2');
    expect(stack.outputs.find((o: any) => o.output_key === 'vdu0_internal_ip').output_value).toBe(
      vdu0Cp2.attributes.fixed_ips[0].ip_address,
    );

    const events = await heat.call('GET', `stacks/vnf-basic/${created.id}/events`);
    const statuses = events.body.events.filter((e: any) => e.resource_name === 'vnf-basic').map((e: any) => e.resource_status);
    expect(statuses).toEqual(['CREATE_IN_PROGRESS', 'CREATE_COMPLETE']);
  });

  it('follows lookups for sub-paths and serves template and files', async () => {
    await heat.createStack(createBody('vnf-lookup'));
    await heat.waitFor('vnf-lookup', ['CREATE_COMPLETE']);
    const files = await heat.call('GET', 'stacks/vnf-lookup/files');
    expect(files.status).toBe(200);
    expect(files.body['VDU1.yaml']).toBe(NESTED);
    const template = await heat.call('GET', 'stacks/vnf-lookup/template');
    expect(Object.keys(template.body.resources)).toContain('VDU1-0');
    const list = await heat.call('GET', 'stacks?stack_name=vnf-lookup');
    expect(list.body.stacks.map((s: any) => s.stack_name)).toEqual(['vnf-lookup']);
  });

  it('rejects a duplicate live stack name with 409', async () => {
    await heat.createStack(createBody('vnf-dup'));
    const again = await heat.call('POST', 'stacks', createBody('vnf-dup'));
    expect(again.status).toBe(409);
    expect(again.body.error.type).toBe('StackExists');
    expect(again.body.title).toBe('Conflict');
  });

  it.each([
    ['unknown resource type', { template: TOP.replace('type: OS::Neutron::Net', 'type: OS::Neutron::Nett') }, /OS::Neutron::Nett/],
    ['missing required parameter', { parameters: {} }, /The Parameter \(nfv\) was not provided/],
    [
      'bad get_param path',
      { parameters: { nfv: { ...nfv(), VDU: { 'VDU1-0': nfv().VDU['VDU1-0'] } } } },
      /VDU1-1.*not found|not found.*VDU1-1/,
    ],
    ['unresolvable file', { files: { 'nested/VDU1.yaml': NESTED } }, /VDU1\.yaml/],
    ['unparsable template', { template: 'heat_template_version: [' }, /parsing/i],
    ['unknown parameter', { parameters: { nfv: nfv(), extra: 1 } }, /extra/],
  ])('rejects a bad template with 400: %s', async (_label, override, message) => {
    const before = (await admin(sim, 'GET', '/stacks')).body.stacks.length;
    const res = await heat.call('POST', 'stacks', createBody('vnf-bad', override as Record<string, unknown>));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.error.message).toMatch(message);
    // Nothing half-created is left behind.
    expect((await admin(sim, 'GET', '/stacks')).body.stacks.length).toBe(before);
  });

  it('rejects a dependency cycle with 400', async () => {
    const template = {
      heat_template_version: '2018-08-31',
      resources: {
        a: { type: 'OS::Heat::Value', properties: { value: { get_attr: ['b', 'value'] } } },
        b: { type: 'OS::Heat::Value', properties: { value: { get_attr: ['a', 'value'] } } },
      },
    };
    const res = await heat.call('POST', 'stacks', { stack_name: 'cycle', template });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/Circular Dependency Found/);
  });

  it('deletes a stack: gone by name, still found by id as DELETE_COMPLETE', async () => {
    await admin(sim, 'DELETE', '/stats');
    const { id } = await heat.createStack(createBody('vnf-del'));
    await heat.waitFor('vnf-del', ['CREATE_COMPLETE']);
    const del = await heat.call('DELETE', `stacks/vnf-del/${id}`);
    expect(del.status).toBe(204);
    expect((await heat.stack(`vnf-del/${id}`)).stack_status).toBe('DELETE_IN_PROGRESS');
    const deleted = await heat.waitFor(id, ['DELETE_COMPLETE']);
    expect(deleted.stack_status_reason).toBe('Stack DELETE completed successfully');
    expect((await heat.call('GET', 'stacks/vnf-del')).status).toBe(404);
    expect((await heat.call('GET', `stacks/vnf-del/${id}/resources`)).body.resources).toEqual([]);

    const all = (await admin(sim, 'GET', '/stacks')).body.stacks;
    expect(all.find((s: any) => s.id === id).status).toBe('DELETE_COMPLETE');
    const stats = (await admin(sim, 'GET', '/stats')).body;
    expect(stats.accepted['stack.create']).toBe(1);
    expect(stats.accepted['stack.delete']).toBe(1);

    // The name is free again.
    await heat.createStack(createBody('vnf-del'));
    await heat.waitFor('vnf-del', ['CREATE_COMPLETE']);
  });

  it('returns 404 in Heat shape for unknown stacks', async () => {
    const res = await heat.call('GET', 'stacks/nope');
    expect(res.status).toBe(404);
    expect(res.body.error.type).toBe('EntityNotFound');
    expect(res.body.error.message).toMatch(/nope/);
  });
});
