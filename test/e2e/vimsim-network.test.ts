/**
 * The simulated Neutron v2.0 on its own: the seeded external networks,
 * networks/subnets/ports with IPAM (a requested address honoured, taken →
 * IpAddressAlreadyAllocated, exhausted → IpAddressGenerationFailure),
 * neutronclient's list filters, fields and paging, in-use conflicts, tags,
 * security groups with the per-project default, extensions.
 */
import { PRIVATE_NETWORK_ID, PUBLIC_NETWORK_ID } from '@nfv-orchestrator/vimsim/store/seed';
import { CloudClient, embeddedCloud, ensureMember, http, startTestSim, type TestSim } from '../support/vimsim-helpers';

describe('vimsim network (Neutron v2.0)', () => {
  let sim: TestSim;
  let neutron: CloudClient;
  const call = (method: string, p: string, body?: unknown) => neutron.call('network', method, p, body);

  beforeAll(async () => {
    sim = await startTestSim();
    neutron = await CloudClient.connect(sim);
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('answers the version list without a token; has public and private, shared and external, with their subnets', async () => {
    expect((await http('GET', `${sim.url}/network/`)).body.versions[0]).toMatchObject({ id: 'v2.0', status: 'CURRENT' });
    const nets = (await call('GET', '/networks?router:external=true')).body.networks;
    expect(nets.map((n: any) => [n.id, n.name, n.shared])).toEqual([
      [PUBLIC_NETWORK_ID, 'public', true],
      [PRIVATE_NETWORK_ID, 'private', true],
    ]);
    const subnets = (await call('GET', `/subnets?network_id=${PUBLIC_NETWORK_ID}`)).body.subnets;
    expect(subnets).toEqual([expect.objectContaining({ name: 'public-subnet', cidr: '127.20.0.0/16', gateway_ip: '127.20.0.1', allocation_pools: [{ start: '127.20.0.2', end: '127.20.255.254' }] })]);
    expect((await call('GET', '/subnets?name=private-subnet')).body.subnets[0].cidr).toBe('127.21.0.0/16');
    // The seeded networks belong to the admin project (resolved through Keystone).
    expect(nets[0].project_id).toBe(neutron.session.projectId);
  });

  it('looks names and ids up the way Heat does (?name=&fields=id, ?id=&fields=id)', async () => {
    expect((await call('GET', '/networks?name=public&fields=id')).body).toEqual({ networks: [{ id: PUBLIC_NETWORK_ID }] });
    expect((await call('GET', `/networks?id=${PRIVATE_NETWORK_ID}&fields=id&fields=name`)).body).toEqual({ networks: [{ id: PRIVATE_NETWORK_ID, name: 'private' }] });
    expect((await call('GET', '/networks?name=nope&fields=id')).body).toEqual({ networks: [] });
    expect((await call('GET', '/networks/None')).body).toEqual({ NeutronError: { type: 'NetworkNotFound', message: 'Network None could not be found.', detail: '' } });
  });

  it('allocates addresses: lowest free, a requested one, a taken one (409), an exhausted network (409); MACs unique', async () => {
    const net = (await call('POST', '/networks', { network: { name: 'small', admin_state_up: true, shared: false } })).body.network;
    expect(net).toMatchObject({ status: 'ACTIVE', subnets: [], project_id: neutron.session.projectId, 'router:external': false });
    const subnet = (await call('POST', '/subnets', { subnet: { name: 'small-sub', network_id: net.id, ip_version: 4, cidr: '10.9.0.0/29' } })).body.subnet;
    expect(subnet).toMatchObject({ gateway_ip: '10.9.0.1', allocation_pools: [{ start: '10.9.0.2', end: '10.9.0.6' }] });
    const port = (fixed?: unknown) => call('POST', '/ports', { port: { network_id: net.id, ...(fixed ? { fixed_ips: fixed } : {}) } });
    const first = (await port()).body.port;
    expect(first).toMatchObject({ status: 'DOWN', device_id: '', fixed_ips: [{ subnet_id: subnet.id, ip_address: '10.9.0.2' }], mac_address: expect.stringMatching(/^fa:16:3e(:[0-9a-f]{2}){3}$/) });
    expect((await port([{ ip_address: '10.9.0.5' }])).body.port.fixed_ips[0].ip_address).toBe('10.9.0.5');
    expect((await port([{ subnet_id: subnet.id, ip_address: '10.9.0.5' }])).body).toEqual({
      NeutronError: { type: 'IpAddressAlreadyAllocated', message: `IP address 10.9.0.5 already allocated in subnet ${subnet.id}`, detail: '' },
    });
    expect((await port([{ ip_address: '10.99.0.5' }])).status).toBe(400);
    for (const ip of ['10.9.0.3', '10.9.0.4', '10.9.0.6']) expect((await port()).body.port.fixed_ips[0].ip_address).toBe(ip);
    expect((await port()).body).toEqual({ NeutronError: { type: 'IpAddressGenerationFailure', message: `No more IP addresses available on network ${net.id}.`, detail: '' } });
    expect((await call('POST', '/ports', { port: { network_id: net.id, mac_address: first.mac_address } })).body.NeutronError.type).toBe('MacAddressInUse');

    expect((await call('DELETE', `/subnets/${subnet.id}`)).body.NeutronError.type).toBe('SubnetInUse');
    expect((await call('DELETE', `/networks/${net.id}`)).body.NeutronError.type).toBe('NetworkInUse');
    const ports = (await call('GET', `/ports?network_id=${net.id}`)).body.ports;
    expect(ports).toHaveLength(5);
    for (const p of ports) expect((await call('DELETE', `/ports/${p.id}`)).status).toBe(204);
    expect((await call('DELETE', `/networks/${net.id}`)).status).toBe(204);
    expect((await call('GET', `/subnets/${subnet.id}`)).status).toBe(404); // went with its network
  });

  it('filters, fields, sorting and marker paging with a next link', async () => {
    const made = [];
    for (const name of ['pg-a', 'pg-b', 'pg-c']) made.push((await call('POST', '/ports', { port: { network_id: PRIVATE_NETWORK_ID, name } })).body.port);
    const page1 = (await call('GET', `/ports?network_id=${PRIVATE_NETWORK_ID}&sort_key=name&sort_dir=asc&limit=2&fields=id&fields=name`)).body;
    expect(page1.ports).toEqual([{ id: made[0].id, name: 'pg-a' }, { id: made[1].id, name: 'pg-b' }]);
    const next = page1.ports_links.find((l: any) => l.rel === 'next').href;
    expect((await http('GET', next, undefined, { 'X-Auth-Token': neutron.session.token })).body.ports).toEqual([{ id: made[2].id, name: 'pg-c' }]);
    const ip = made[1].fixed_ips[0].ip_address;
    expect((await call('GET', `/ports?fixed_ips=ip_address%3D${ip}`)).body.ports.map((p: any) => p.id)).toEqual([made[1].id]);
    expect((await call('GET', `/ports?id=${made[0].id}&id=${made[2].id}`)).body.ports).toHaveLength(2);
    for (const p of made) await call('DELETE', `/ports/${p.id}`);
  });

  it('tags on networks and ports', async () => {
    const port = (await call('POST', '/ports', { port: { network_id: PUBLIC_NETWORK_ID } })).body.port;
    expect((await call('PUT', `/ports/${port.id}/tags`, { tags: ['vnf', 'vdu1'] })).body.tags).toEqual(['vnf', 'vdu1']);
    expect((await call('PUT', `/ports/${port.id}/tags/extra`)).status).toBe(201);
    expect((await call('GET', `/ports?tags=vnf,extra`)).body.ports.map((p: any) => p.id)).toEqual([port.id]);
    expect((await call('DELETE', `/ports/${port.id}/tags/nope`)).status).toBe(404);
    await call('DELETE', `/ports/${port.id}`);
  });

  it('security groups: a default one per project, rules in bulk as neutronclient sends them, in-use conflicts', async () => {
    const groups = (await call('GET', `/security-groups?project_id=${neutron.session.projectId}`)).body.security_groups;
    const def = groups.find((g: any) => g.name === 'default');
    expect(def.security_group_rules).toHaveLength(4);
    const sg = (await call('POST', '/security-groups', { security_group: { name: 'ssh' } })).body.security_group;
    const bulk = await call('POST', '/security-group-rules', {
      security_group_rules: [{ direction: 'ingress', ethertype: 'IPv4', protocol: 'tcp', port_range_min: '22', port_range_max: '22', remote_ip_prefix: '0.0.0.0/0', security_group_id: sg.id }],
    });
    expect(bulk.status).toBe(201);
    expect(bulk.body.security_group_rules[0]).toMatchObject({ port_range_min: 22, protocol: 'tcp' });
    expect((await call('POST', '/security-group-rules', { security_group_rule: { direction: 'ingress', protocol: 'tcp', port_range_min: 22, port_range_max: 22, remote_ip_prefix: '0.0.0.0/0', security_group_id: sg.id } })).body.NeutronError.type).toBe('SecurityGroupRuleExists');
    const port = (await call('POST', '/ports', { port: { network_id: PUBLIC_NETWORK_ID, security_groups: [sg.id] } })).body.port;
    expect((await call('DELETE', `/security-groups/${sg.id}`)).body.NeutronError.type).toBe('SecurityGroupInUse');
    await call('DELETE', `/ports/${port.id}`);
    expect((await call('DELETE', `/security-groups/${sg.id}`)).status).toBe(204);
    // A port without security_groups gets the project's default group.
    const plain = (await call('POST', '/ports', { port: { network_id: PUBLIC_NETWORK_ID } })).body.port;
    expect(plain.security_groups).toEqual([def.id]);
    await call('DELETE', `/ports/${plain.id}`);
  });

  it('lists extensions and the empty collections it has none of', async () => {
    const aliases = (await call('GET', '/extensions')).body.extensions.map((e: any) => e.alias);
    expect(aliases).toEqual(expect.arrayContaining(['security-group', 'router', 'port-security', 'standard-attr-tag', 'binding', 'external-net']));
    expect((await call('GET', '/floatingips?fixed_ip_address=127.20.0.2')).body).toEqual({ floatingips: [] });
    expect((await call('GET', '/extensions/nope')).status).toBe(404);
  });

  it('a member of another project sees the shared networks, not the admin project ports, and may not make external networks', async () => {
    const other = new CloudClient(sim, await ensureMember(embeddedCloud()));
    const port = (await call('POST', '/ports', { port: { network_id: PUBLIC_NETWORK_ID, name: 'admins' } })).body.port;
    expect((await other.call('network', 'GET', '/networks?name=public')).body.networks).toHaveLength(1);
    expect((await other.call('network', 'GET', `/ports/${port.id}`)).status).toBe(404);
    expect((await other.call('network', 'GET', '/ports')).body.ports.map((p: any) => p.id)).not.toContain(port.id);
    expect((await other.call('network', 'POST', '/networks', { network: { name: 'ext', 'router:external': true } })).status).toBe(403);
    const own = (await other.call('network', 'POST', '/ports', { port: { network_id: PUBLIC_NETWORK_ID } })).body.port;
    expect(own.project_id).toBe(other.session.projectId);
    const groups = (await other.call('network', 'GET', '/security-groups')).body.security_groups;
    expect(groups.map((g: any) => [g.name, g.project_id])).toEqual([['default', other.session.projectId]]);
    expect(own.security_groups).toEqual([groups[0].id]);
    // The admin sees every project's ports.
    expect((await call('GET', `/ports/${own.id}`)).status).toBe(200);
    await other.call('network', 'DELETE', `/ports/${own.id}`);
    await call('DELETE', `/ports/${port.id}`);
  });
});
