/**
 * The simulated Nova v2.1 on its own (no Heat): seed flavors, version
 * discovery and microversions, server create → BUILD → ACTIVE with Nova-made
 * and given ports, Nova's error answers, actions (reboot, stop/start, resize
 * with confirm and revert, rebuild), interfaces, metadata, tags, key pairs,
 * and the real 404 after a delete.
 */
import { PUBLIC_NETWORK_ID, seedImageId } from '@nfv-orchestrator/vimsim/store/seed';
import { admin, CloudClient, embeddedCloud, ensureMember, http, startTestSim, type TestSim } from '../support/vimsim-helpers';

const UBUNTU = seedImageId('ubuntu-20.04');
const MV = { 'X-OpenStack-Nova-API-Version': '2.96' };

describe('vimsim compute (Nova v2.1)', () => {
  let sim: TestSim;
  let nova: CloudClient;
  const call = (method: string, p: string, body?: unknown, headers = MV) => nova.call('compute', method, p, body, headers);
  const active = (id: string) => nova.until('compute', `/servers/${id}`, (b) => b.server.status === 'ACTIVE', 10_000, MV);
  const boot = async (name: string, extra: Record<string, unknown> = {}) => {
    const res = await call('POST', '/servers', { server: { name, imageRef: UBUNTU, flavorRef: '1', networks: [{ uuid: PUBLIC_NETWORK_ID }], ...extra } });
    expect(res.status).toBe(202);
    return res.body.server.id as string;
  };

  beforeAll(async () => {
    // long enough that the next request still sees the transitional state (BUILD, deleting, RESIZE) on a loaded machine
    sim = await startTestSim({ delayMs: 250 });
    nova = await CloudClient.connect(sim);
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('answers version discovery without a token and negotiates microversions', async () => {
    const root = await http('GET', `${sim.url}/compute/`);
    expect(root.body.versions.map((v: any) => v.id)).toEqual(['v2.0', 'v2.1']);
    const doc = await http('GET', `${sim.url}/compute/v2.1`);
    expect(doc.body.version).toMatchObject({ id: 'v2.1', status: 'CURRENT', version: '2.96', min_version: '2.1' });
    const v = await call('GET', '/flavors', undefined, { 'OpenStack-API-Version': 'compute 2.60' } as any);
    expect(v.headers.get('openstack-api-version')).toBe('compute 2.60');
    expect((await call('GET', '/flavors', undefined, {} as any)).headers.get('x-openstack-nova-api-version')).toBe('2.1');
    const tooNew = await call('GET', '/flavors', undefined, { 'X-OpenStack-Nova-API-Version': '2.200' });
    expect(tooNew.status).toBe(406);
    expect(tooNew.body.notAcceptable.message).toBe('Version 2.200 is not supported by the API. Minimum is 2.1 and maximum is 2.96.');
  });

  it('has the devstack flavors with ids 1..5, found by id and listed by name', async () => {
    const list = await call('GET', '/flavors/detail');
    expect(list.body.flavors.map((f: any) => [f.id, f.name, f.vcpus, f.ram, f.disk])).toEqual([
      ['1', 'm1.tiny', 1, 512, 1],
      ['2', 'm1.small', 1, 2048, 20],
      ['3', 'm1.medium', 2, 4096, 40],
      ['4', 'm1.large', 4, 8192, 80],
      ['5', 'm1.xlarge', 8, 16384, 160],
    ]);
    expect((await call('GET', '/flavors/m1.tiny')).status).toBe(404); // novaclient then lists and matches the name
    expect((await call('GET', '/flavors/3')).body.flavor.name).toBe('m1.medium');
  });

  it('admins create and delete flavors (Heat\'s OS::Nova::Flavor); members may not', async () => {
    const made = await call('POST', '/flavors', { flavor: { name: 'vnf-flavor', ram: 1024, vcpus: 1, disk: 10, id: 'auto', swap: '', 'os-flavor-access:is_public': true } });
    expect(made.status).toBe(200);
    const flavorId = made.body.flavor.id;
    expect(made.body.flavor).toMatchObject({ name: 'vnf-flavor', ram: 1024, vcpus: 1, disk: 10, 'os-flavor-access:is_public': true });
    expect((await call('POST', `/flavors/${flavorId}/os-extra_specs`, { extra_specs: { 'hw:cpu_policy': 'dedicated' } })).body.extra_specs).toEqual({ 'hw:cpu_policy': 'dedicated' });
    expect((await call('POST', '/flavors', { flavor: { name: 'vnf-flavor', ram: 1, vcpus: 1, disk: 0 } })).status).toBe(409);
    const id = await boot('vm-flavored', { flavorRef: flavorId });
    expect((await active(id)).server.flavor.original_name).toBe('vnf-flavor');
    const member = new CloudClient(sim, await ensureMember(embeddedCloud()));
    const refused = await member.call('compute', 'POST', '/flavors', { flavor: { name: 'mine', ram: 1, vcpus: 1, disk: 0 } }, MV);
    expect(refused.status).toBe(403);
    expect((await call('DELETE', `/flavors/${flavorId}`)).status).toBe(202);
    expect((await call('GET', `/flavors/${flavorId}`)).status).toBe(404);
    expect((await call('DELETE', `/servers/${id}`)).status).toBe(204);
  });

  it('builds a server: BUILD, then ACTIVE with its Nova-made port bound; delete removes it and the port', async () => {
    const id = await boot('vm-a', { metadata: { role: 'db' } });
    const building = (await call('GET', `/servers/${id}`)).body.server;
    expect(building).toMatchObject({ status: 'BUILD', 'OS-EXT-STS:vm_state': 'building', tenant_id: nova.session.projectId, metadata: { role: 'db' } });
    const server = (await active(id)).server;
    expect(server).toMatchObject({ status: 'ACTIVE', 'OS-EXT-STS:task_state': null, 'OS-EXT-STS:power_state': 1, image: { id: UBUNTU }, flavor: { original_name: 'm1.tiny' } });
    expect(server['OS-EXT-SRV-ATTR:instance_name']).toMatch(/^instance-/);
    const [addr] = server.addresses.public;
    expect(addr).toMatchObject({ version: 4, 'OS-EXT-IPS:type': 'fixed', 'OS-EXT-IPS-MAC:mac_addr': expect.stringMatching(/^fa:16:3e:/) });
    expect(addr.addr).toMatch(/^127\.20\./);
    const ports = (await nova.call('network', 'GET', `/ports?device_id=${id}`)).body.ports;
    expect(ports).toEqual([expect.objectContaining({ device_owner: 'compute:nova', status: 'ACTIVE', mac_address: addr['OS-EXT-IPS-MAC:mac_addr'] })]);
    const ifaces = (await call('GET', `/servers/${id}/os-interface`)).body.interfaceAttachments;
    expect(ifaces).toEqual([expect.objectContaining({ port_id: ports[0].id, net_id: PUBLIC_NETWORK_ID, port_state: 'ACTIVE' })]);

    expect((await call('DELETE', `/servers/${id}`)).status).toBe(204);
    expect((await call('GET', `/servers/${id}`)).body.server['OS-EXT-STS:task_state']).toBe('deleting');
    expect(await nova.until('compute', `/servers/${id}`, () => false)).toBeUndefined(); // a real 404
    const gone = await call('GET', `/servers/${id}`);
    expect(gone).toMatchObject({ status: 404, body: { itemNotFound: { code: 404, message: `Instance ${id} could not be found.` } } });
    expect((await nova.call('network', 'GET', `/ports/${ports[0].id}`)).status).toBe(404);
  });

  it('binds a given port and leaves it (unbound, DOWN) when the server goes; a port in use is a 409', async () => {
    const port = (await nova.call('network', 'POST', '/ports', { port: { network_id: PUBLIC_NETWORK_ID, name: 'given' } })).body.port;
    expect(port.status).toBe('DOWN');
    const id = await boot('vm-b', { networks: [{ port: port.id }] });
    await active(id);
    expect((await nova.call('network', 'GET', `/ports/${port.id}`)).body.port).toMatchObject({ device_id: id, status: 'ACTIVE' });
    const again = await call('POST', '/servers', { server: { name: 'vm-c', imageRef: UBUNTU, flavorRef: '1', networks: [{ port: port.id }] } });
    expect(again).toMatchObject({ status: 409, body: { conflictingRequest: { message: `Port ${port.id} is still in use.` } } });
    await call('DELETE', `/servers/${id}`);
    await nova.until('compute', `/servers/${id}`, () => false);
    expect((await nova.call('network', 'GET', `/ports/${port.id}`)).body.port).toMatchObject({ device_id: '', device_owner: '', status: 'DOWN' });
    await nova.call('network', 'DELETE', `/ports/${port.id}`);
  });

  it('a failed build (injected fault) is ERROR with its fault, and lets its given port go for a replacement', async () => {
    const port = (await nova.call('network', 'POST', '/ports', { port: { network_id: PUBLIC_NETWORK_ID } })).body.port;
    await admin(sim, 'POST', '/faults', { target: 'server', operation: 'create', mode: 'fail', match: 'doomed' });
    const id = await boot('doomed-vm', { networks: [{ port: port.id }] });
    const failed = (await nova.until('compute', `/servers/${id}`, (b) => b.server.status === 'ERROR', 10_000, MV)).server;
    expect(failed).toMatchObject({ 'OS-EXT-STS:vm_state': 'error', addresses: {}, fault: { code: 500, message: 'No valid host was found. There are not enough hosts available.', created: expect.any(String) } });
    expect((await nova.call('network', 'GET', `/ports/${port.id}`)).body.port).toMatchObject({ device_id: '', status: 'DOWN' });
    const replacement = await boot('doomed-vm', { networks: [{ port: port.id }] }); // times: 1, used up
    expect((await active(replacement)).server.addresses.public[0].addr).toBe(port.fixed_ips[0].ip_address);
    for (const s of [id, replacement]) await call('DELETE', `/servers/${s}`);
  });

  it('refuses what Nova refuses, with its messages', async () => {
    const create = (server: Record<string, unknown>) => call('POST', '/servers', { server: { name: 'bad', imageRef: UBUNTU, flavorRef: '1', networks: 'none', ...server } });
    expect((await create({ flavorRef: '99' })).body.badRequest.message).toBe('Flavor 99 could not be found.');
    expect((await create({ imageRef: '6a1b1c7e-0000-4000-8000-000000000000' })).body.badRequest.message).toBe('Can not find requested image');
    expect((await create({ imageRef: '' })).body.badRequest.message).toContain('Block Device Mapping is Invalid');
    expect((await create({ key_name: 'nope' })).body.badRequest.message).toBe('Invalid key_name provided.');
    expect((await create({ user_data: 'not base64!' })).body.badRequest.message).toBe('User data needs to be valid base 64.');
    expect((await create({ networks: [{ uuid: 'no-such-net' }] })).body.badRequest.message).toBe('Network no-such-net could not be found.');
    expect((await create({ networks: undefined })).status).toBe(400); // required from 2.37
    expect((await create({ networks: 'auto' })).body.conflictingRequest.message).toContain('Multiple possible networks found');
    expect((await call('POST', '/servers', { server: { flavorRef: '1' } })).status).toBe(400);
    expect((await call('GET', '/servers/nope')).status).toBe(404);
  });

  it('lists with novaclient filters, only the caller project unless all_tenants', async () => {
    const a = await boot('list-alpha');
    const b = await boot('list-beta');
    await Promise.all([active(a), active(b)]);
    const named = (await call('GET', '/servers?name=^list-al')).body.servers;
    expect(named.map((s: any) => s.id)).toEqual([a]);
    const detail = (await call('GET', '/servers/detail?status=ACTIVE')).body.servers.map((s: any) => s.id);
    expect(detail).toEqual(expect.arrayContaining([a, b]));
    const page = await call('GET', '/servers?limit=1');
    expect(page.body.servers).toHaveLength(1);
    expect(page.body.servers_links[0].href).toContain('marker=');
    expect((await call('GET', '/servers?all_tenants=1')).status).toBe(200); // admin
    await call('DELETE', `/servers/${a}`);
    await call('DELETE', `/servers/${b}`);
  });

  it('actions: reboot, stop/start, resize with confirm and revert, rebuild onto another image; bad actions are 400/409', async () => {
    const id = await boot('vm-actions');
    await active(id);
    const action = (body: unknown) => call('POST', `/servers/${id}/action`, body);
    expect((await action({ reboot: { type: 'HARD' } })).status).toBe(202);
    expect((await call('GET', `/servers/${id}`)).body.server.status).toBe('HARD_REBOOT');
    expect((await action({ reboot: { type: 'SOFT' } })).status).toBe(409); // busy
    await active(id);
    expect((await action({ 'os-stop': null })).status).toBe(202);
    await nova.until('compute', `/servers/${id}`, (b) => b.server.status === 'SHUTOFF');
    expect((await action({ 'os-start': null })).status).toBe(202);
    await active(id);

    expect((await action({ resize: { flavorRef: '1' } })).body.badRequest.message).toBe('When resizing, instances must change flavor!');
    expect((await action({ resize: { flavorRef: '2' } })).status).toBe(202);
    expect((await call('GET', `/servers/${id}`)).body.server.status).toBe('RESIZE');
    await nova.until('compute', `/servers/${id}`, (b) => b.server.status === 'VERIFY_RESIZE');
    expect((await action({ confirmResize: null })).status).toBe(204);
    expect((await call('GET', `/servers/${id}`)).body.server).toMatchObject({ status: 'ACTIVE', flavor: { original_name: 'm1.small' } });
    await action({ resize: { flavorRef: '3' } });
    await nova.until('compute', `/servers/${id}`, (b) => b.server.status === 'VERIFY_RESIZE');
    expect((await action({ revertResize: null })).status).toBe(202);
    expect((await active(id)).server.flavor.original_name).toBe('m1.small');

    const generation = (await admin(sim, 'GET', `/servers/${id}`)).body.generation;
    const jammy = seedImageId('ubuntu-22.04');
    const rebuilt = await action({ rebuild: { imageRef: jammy } });
    expect(rebuilt.status).toBe(202);
    expect(rebuilt.body.server.status).toBe('REBUILD');
    expect((await active(id)).server.image.id).toBe(jammy);
    expect((await admin(sim, 'GET', `/servers/${id}`)).body.generation).toBe(generation + 1);

    expect((await action({ frobnicate: null })).body.badRequest.message).toBe('There is no such action: frobnicate');
    expect((await action({ forceDelete: null })).status).toBe(409);
    expect((await action({ reboot: { type: 'SOFT' }, 'os-stop': null })).status).toBe(400);
    await call('DELETE', `/servers/${id}`);
  });

  it('interfaces, metadata and tags', async () => {
    const id = await boot('vm-iface');
    await active(id);
    const attached = await call('POST', `/servers/${id}/os-interface`, { interfaceAttachment: { net_id: PUBLIC_NETWORK_ID } });
    expect(attached.status).toBe(200);
    const portId = attached.body.interfaceAttachment.port_id;
    expect((await call('GET', `/servers/${id}`)).body.server.addresses.public).toHaveLength(2);
    expect((await call('DELETE', `/servers/${id}/os-interface/${portId}`)).status).toBe(202);
    expect((await nova.call('network', 'GET', `/ports/${portId}`)).status).toBe(404); // Nova made it, Nova deletes it
    expect((await call('DELETE', `/servers/${id}/os-interface/${portId}`)).status).toBe(404);

    expect((await call('POST', `/servers/${id}/metadata`, { metadata: { a: '1', b: '2' } })).body.metadata).toEqual({ a: '1', b: '2' });
    expect((await call('DELETE', `/servers/${id}/metadata/a`)).status).toBe(204);
    expect((await call('GET', `/servers/${id}/metadata`)).body.metadata).toEqual({ b: '2' });
    expect((await call('PUT', `/servers/${id}/tags`, { tags: ['x', 'y'] })).body.tags).toEqual(['x', 'y']);
    expect((await call('GET', `/servers/${id}`)).body.server.tags).toEqual(['x', 'y']);
    expect((await call('GET', `/servers/${id}/tags`, undefined, { 'X-OpenStack-Nova-API-Version': '2.25' })).status).toBe(404);
    await call('DELETE', `/servers/${id}`);
  });

  it('key pairs: import, show, list, delete; 2.92 needs a public key', async () => {
    const pub = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl test@vimsim';
    const created = await call('POST', '/os-keypairs', { keypair: { name: 'k1', public_key: pub } });
    expect(created.status).toBe(201);
    expect(created.body.keypair.fingerprint).toMatch(/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/);
    expect((await call('GET', '/os-keypairs/k1')).body.keypair).toMatchObject({ name: 'k1', public_key: pub, type: 'ssh' });
    expect((await call('GET', '/os-keypairs')).body.keypairs.map((k: any) => k.keypair.name)).toContain('k1');
    expect((await call('POST', '/os-keypairs', { keypair: { name: 'k1', public_key: pub } })).status).toBe(409);
    expect((await call('POST', '/os-keypairs', { keypair: { name: 'k2' } })).status).toBe(400);
    expect((await call('POST', '/os-keypairs', { keypair: { name: 'k3', public_key: 'ssh-rsa garbage' } })).status).toBe(400);
    const generated = await call('POST', '/os-keypairs', { keypair: { name: 'k4' } }, { 'X-OpenStack-Nova-API-Version': '2.10' });
    expect(generated.body.keypair.private_key).toContain('PRIVATE KEY');
    const id = await boot('vm-key', { key_name: 'k1' });
    expect((await active(id)).server.key_name).toBe('k1');
    await call('DELETE', `/servers/${id}`);
    for (const k of ['k1', 'k4']) expect((await call('DELETE', `/os-keypairs/${k}`)).status).toBe(204);
    expect((await call('GET', '/os-keypairs/k1')).status).toBe(404);
  });

  it('server groups: created with policies (before 2.64) or policy + rules; servers join by the scheduler hint', async () => {
    const old = await call('POST', '/os-server-groups', { server_group: { name: 'aff', policies: ['affinity'] } }, { 'X-OpenStack-Nova-API-Version': '2.15' });
    expect(old.body.server_group).toMatchObject({ name: 'aff', policies: ['affinity'], members: [] });
    const group = (await call('POST', '/os-server-groups', { server_group: { name: 'anti', policy: 'anti-affinity', rules: { max_server_per_host: 2 } } })).body.server_group;
    expect(group).toMatchObject({ policy: 'anti-affinity', rules: { max_server_per_host: 2 } });
    expect((await call('POST', '/os-server-groups', { server_group: { name: 'x', policies: ['affinity'] } })).status).toBe(400); // 2.96 wants policy
    const res = await call('POST', '/servers', { server: { name: 'grouped', imageRef: UBUNTU, flavorRef: '1', networks: 'none' }, 'os:scheduler_hints': { group: group.id } });
    const id = res.body.server.id;
    expect((await call('GET', `/os-server-groups/${group.id}`)).body.server_group.members).toEqual([id]);
    expect((await active(id)).server.server_groups).toEqual([group.id]);
    expect((await call('POST', '/servers', { server: { name: 'lost', imageRef: UBUNTU, flavorRef: '1', networks: 'none' }, 'os:scheduler_hints': { group: 'nope' } })).status).toBe(400);
    await call('DELETE', `/servers/${id}`);
    await nova.until('compute', `/servers/${id}`, () => false);
    expect((await call('GET', `/os-server-groups/${group.id}`)).body.server_group.members).toEqual([]);
    for (const g of [old.body.server_group.id, group.id]) expect((await call('DELETE', `/os-server-groups/${g}`)).status).toBe(204);
  });

  it('the scheduler: anti-affinity puts each member on a host of its own, one more than the hosts finds no valid host; affinity keeps them together', async () => {
    const zone = (await call('GET', '/os-availability-zone/detail')).body.availabilityZoneInfo.find((z: any) => z.zoneName === 'nova');
    const hosts = Object.keys(zone.hosts);
    expect(hosts.length).toBeGreaterThanOrEqual(5); // Tacker's HA flavours: up to 5 masters in anti-affinity
    const bootIn = async (group: string, name: string) => (await call('POST', '/servers', { server: { name, imageRef: UBUNTU, flavorRef: '1', networks: 'none' }, 'os:scheduler_hints': { group } })).body.server.id as string;
    const anti = (await call('POST', '/os-server-groups', { server_group: { name: 'spread', policy: 'anti-affinity' } })).body.server_group;
    const together = (await call('POST', '/os-server-groups', { server_group: { name: 'together', policy: 'affinity' } })).body.server_group;
    const ids: string[] = [];
    for (let i = 0; i <= hosts.length; i++) ids.push(await bootIn(anti.id, `spread-${i}`));
    const placed = await Promise.all(ids.slice(0, -1).map(async (id) => (await active(id)).server));
    expect(placed.map((s) => s['OS-EXT-SRV-ATTR:host']).sort()).toEqual([...hosts].sort());
    expect(new Set(placed.map((s) => s.hostId)).size).toBe(hosts.length); // what a member sees: a hash per host
    const unplaced = (await nova.until('compute', `/servers/${ids.at(-1)}`, (b) => b.server.status === 'ERROR', 10_000, MV)).server;
    expect([unplaced.fault?.message, unplaced['OS-EXT-SRV-ATTR:host'], unplaced.hostId]).toEqual(['No valid host was found. There are not enough hosts available.', null, '']);
    const pair = [await bootIn(together.id, 'together-1'), await bootIn(together.id, 'together-2')];
    const [a, b] = await Promise.all(pair.map(async (id) => (await active(id)).server));
    expect(b['OS-EXT-SRV-ATTR:host']).toBe(a['OS-EXT-SRV-ATTR:host']);
    for (const id of [...ids, ...pair]) await call('DELETE', `/servers/${id}`);
    for (const id of [...ids, ...pair]) await nova.until('compute', `/servers/${id}`, () => false);
    for (const g of [anti.id, together.id]) expect((await call('DELETE', `/os-server-groups/${g}`)).status).toBe(204);
  });

  it('limits, availability zones, stats', async () => {
    expect((await call('GET', '/limits')).body.limits.absolute).toMatchObject({ maxServerMeta: 128, maxPersonality: 5 });
    expect((await call('GET', '/os-availability-zone')).body.availabilityZoneInfo[0].zoneName).toBe('nova');
    const stats = (await admin(sim, 'GET', '/stats')).body;
    expect(stats.calls['compute.server.create']).toBeGreaterThan(0);
    expect(stats.accepted['compute.server.delete']).toBeGreaterThan(0);
  });
});
