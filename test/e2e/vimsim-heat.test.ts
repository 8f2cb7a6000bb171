/**
 * The simulator behind a real Heat: the catalog points at an in-process
 * simulator and Heat creates, updates and deletes stacks through its Nova,
 * Neutron, Glance and Cinder. Servers answer SSH on their 127.20.x.y address
 * with the accounts from user_data as Heat wraps it; nested stacks, groups
 * scaling in, boot from volume, heal by mark-unhealthy (a new server) and an
 * image change (a rebuild of the same server).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { VimSim } from '@nfv-orchestrator/vimsim/server';
import { admin, CloudClient, embeddedCloud, HeatTestClient, regionFor, startTestSim } from '../support/vimsim-helpers';
import { freePort, sshConnect, sshExec, type Connected } from '../support/vimsim-ssh-helpers';

const run = Math.random().toString(36).slice(2, 7);
const MV = { 'X-OpenStack-Nova-API-Version': '2.96' };

const VDU = {
  heat_template_version: '2018-08-31',
  parameters: {
    image: { type: 'string', default: 'ubuntu-20.04' },
    flavor: { type: 'string', default: 'm1.tiny' },
    net: { type: 'string', default: 'public' },
  },
  resources: {
    cp: { type: 'OS::Neutron::Port', properties: { network: { get_param: 'net' } } },
    vdu: { type: 'OS::Nova::Server', properties: { flavor: { get_param: 'flavor' }, image: { get_param: 'image' }, networks: [{ port: { get_resource: 'cp' } }] } },
  },
  outputs: { ip: { value: { get_attr: ['cp', 'fixed_ips', 0, 'ip_address'] } }, id: { value: { get_resource: 'vdu' } }, port: { value: { get_resource: 'cp' } } },
};

describe('vimsim behind real Heat', () => {
  let sim: VimSim;
  let heat: HeatTestClient;
  let cloud: CloudClient;
  let simRegion: { region: string; remove: () => Promise<void> } | undefined;
  let sshPort: number;
  const stacks: string[] = [];
  const open: Connected[] = [];
  const name = (base: string) => {
    const n = `${base}-${run}`;
    stacks.push(n);
    return n;
  };
  const server = (id: string) => cloud.call('compute', 'GET', `/servers/${id}`, undefined, MV);
  const simServer = async (address: string) => (await admin(sim, 'GET', `/servers?address=${address}`)).body[0];
  const connect = async (address: string, username: string, password: string) => {
    const c = await sshConnect(address, sshPort, username, { password });
    open.push(c);
    return c;
  };

  beforeAll(async () => {
    sshPort = await freePort();
    sim = await startTestSim({ delayMs: 30, sshPort });
    simRegion = await regionFor(embeddedCloud(), sim.url);
    heat = await HeatTestClient.connect(embeddedCloud(), simRegion.region);
    cloud = await CloudClient.connect(sim);
  });
  afterEach(() => {
    for (const c of open.splice(0)) c.client.end();
  });
  afterAll(async () => {
    for (const s of stacks) await heat.deleteStack(s).catch(() => undefined);
    await simRegion?.remove();
    await sim?.close();
  });

  it('creates servers with ports on public that answer SSH with the accounts from user_data, in each user_data_format', async () => {
    const stack = name('ssh');
    await heat.createStack({
      stack_name: stack,
      template: {
        heat_template_version: '2018-08-31',
        resources: {
          port: { type: 'OS::Neutron::Port', properties: { network: 'public' } },
          // Default user_data_format HEAT_CFNTOOLS: Heat puts the script in its cfn-userdata MIME part.
          script: {
            type: 'OS::Nova::Server',
            properties: { name: 'vm-script', flavor: 'm1.tiny', image: 'ubuntu-20.04', networks: [{ port: { get_resource: 'port' } }], user_data: "#!/bin/bash\necho 'ubuntu:Scr1pt-pw' | chpasswd\n" },
          },
          // RAW: the text itself; the network by name, so Nova makes the port.
          raw: {
            type: 'OS::Nova::Server',
            properties: {
              name: 'vm-raw', flavor: 'm1.small', image: 'Image for Private registry', networks: [{ network: 'public' }], user_data_format: 'RAW',
              user_data: '#cloud-config\nusers:\n  - default\n  - name: operator\n    plain_text_passwd: op-pass-1\n    lock_passwd: false\n    sudo: ALL=(ALL) NOPASSWD:ALL\n',
            },
          },
          // SOFTWARE_CONFIG: a text/plain part of Heat's multipart.
          sc: {
            type: 'OS::Nova::Server',
            properties: { name: 'vm-sc', flavor: 'm1.tiny', image: 'ubuntu-20.04', networks: [{ network: 'private' }], user_data_format: 'SOFTWARE_CONFIG', user_data: '#cloud-config\npassword: Sc-pass\nchpasswd: {expire: false}\n' },
          },
        },
        outputs: {
          script_ip: { value: { get_attr: ['port', 'fixed_ips', 0, 'ip_address'] } },
          raw_ip: { value: { get_attr: ['raw', 'first_address'] } },
          sc_networks: { value: { get_attr: ['sc', 'networks'] } },
          instance: { value: { get_attr: ['raw', 'instance_name'] } },
        },
      },
    });
    await heat.waitFor(stack, ['CREATE_COMPLETE']);
    const scriptIp = await heat.output(stack, 'script_ip');
    const rawIp = await heat.output(stack, 'raw_ip');
    const scIp = (await heat.output(stack, 'sc_networks')).private[0];
    expect(scriptIp).toMatch(/^127\.20\.\d+\.\d+$/);
    expect(rawIp).toMatch(/^127\.20\.\d+\.\d+$/);
    expect(scIp).toMatch(/^127\.21\.\d+\.\d+$/);
    expect(await heat.output(stack, 'instance')).toMatch(/^instance-/);

    const viaScript = await connect(scriptIp, 'ubuntu', 'Scr1pt-pw');
    expect((await sshExec(viaScript.client, 'hostname')).stdout).toBe('vm-script\n');
    expect(viaScript.fingerprint).toBe((await simServer(scriptIp)).ssh.hostKeyFingerprint);
    const operator = await connect(rawIp, 'operator', 'op-pass-1');
    expect((await sshExec(operator.client, 'sudo whoami')).stdout).toBe('root\n');
    await connect(rawIp, 'ubuntu', 'ubuntu'); // the image's default user is kept ("- default")
    await connect(scIp, 'ubuntu', 'Sc-pass');
    await expect(sshConnect(scriptIp, sshPort, 'ubuntu', { password: 'ubuntu' })).rejects.toMatchObject({ level: 'client-authentication' });
    expect(await simServer(rawIp)).toMatchObject({ name: 'vm-raw', status: 'ACTIVE', flavor: 'm1.small', ssh: { listening: true, port: sshPort } });
  });

  it('nested template resources via files, and a ResourceGroup scaling in by its removal policy', async () => {
    const stack = name('rg');
    const template = (count: number, remove: string[]) => ({
      heat_template_version: '2018-08-31',
      resources: {
        group: {
          type: 'OS::Heat::ResourceGroup',
          properties: { count, removal_policies: [{ resource_list: remove }], resource_def: { type: 'vdu.yaml', properties: { image: 'cirros-0.5.2-x86_64-disk', flavor: 'm1.tiny', net: 'private' } } },
        },
      },
      // Member name -> value (Heat 27 sometimes names the first member "1", not "0").
      outputs: { ids: { value: { get_attr: ['group', 'attributes', 'id'] } }, ports: { value: { get_attr: ['group', 'attributes', 'port'] } } },
    });
    const files = { 'vdu.yaml': JSON.stringify(VDU) };
    const { id } = await heat.createStack({ stack_name: stack, template: template(3, []), files });
    await heat.waitFor(stack, ['CREATE_COMPLETE']);
    const ids: Record<string, string> = await heat.output(stack, 'ids');
    const ports: Record<string, string> = await heat.output(stack, 'ports');
    const [victim, ...kept] = Object.keys(ids).sort();
    expect(kept).toHaveLength(2);
    for (const sid of Object.values(ids)) expect((await server(sid)).body.server.status).toBe('ACTIVE');
    for (const m of Object.keys(ids)) expect((await cloud.call('network', 'GET', `/ports/${ports[m]}`)).body.port.device_id).toBe(ids[m]);

    await heat.update(`${stack}/${id}`, { template: template(2, [victim]), files });
    expect((await server(ids[victim])).status).toBe(404);
    expect((await cloud.call('network', 'GET', `/ports/${ports[victim]}`)).status).toBe(404);
    expect(await heat.output(stack, 'ids')).toEqual(Object.fromEntries(kept.map((m) => [m, ids[m]])));
  });

  it('an AutoScalingGroup scaling out and in', async () => {
    const stack = name('asg');
    // No outputs on the group's attributes: Heat 27 then loses a member's properties data on
    // updates ("ResourcePropertiesData with id N not found"), a Heat bug of its own.
    const template = (capacity: number) => ({
      heat_template_version: '2018-08-31',
      resources: {
        asg: {
          type: 'OS::Heat::AutoScalingGroup',
          properties: { min_size: 1, max_size: 4, desired_capacity: capacity, resource: { type: 'vdu.yaml', properties: { image: 'ubuntu-20.04', flavor: 'm1.tiny', net: 'public' } } },
        },
      },
    });
    const files = { 'vdu.yaml': JSON.stringify(VDU) };
    const members = async () => (await heat.resources(stack, 3)).filter((r) => r.resource_type === 'OS::Nova::Server').map((r) => r.physical_resource_id as string);
    const { id } = await heat.createStack({ stack_name: stack, template: template(1), files });
    await heat.waitFor(stack, ['CREATE_COMPLETE']);
    const before = await members();
    expect(before).toHaveLength(1);
    await heat.update(`${stack}/${id}`, { template: template(3), files });
    const out = await members();
    expect(out).toHaveLength(3);
    expect(out).toEqual(expect.arrayContaining(before));
    for (const sid of out) expect((await server(sid)).body.server.status).toBe('ACTIVE');
    await heat.update(`${stack}/${id}`, { template: template(1), files });
    const after = await members();
    expect(after).toHaveLength(1);
    for (const gone of out.filter((s) => !after.includes(s))) expect((await server(gone)).status).toBe(404);
  });

  it('a Cinder volume made from an image, a server booting from it; deleting the stack frees and deletes it', async () => {
    const stack = name('bfv');
    await heat.createStack({
      stack_name: stack,
      template: {
        heat_template_version: '2018-08-31',
        resources: {
          vol: { type: 'OS::Cinder::Volume', properties: { size: 2, image: 'ubuntu-20.04' } },
          data: { type: 'OS::Cinder::Volume', properties: { size: 1 } },
          vm: {
            type: 'OS::Nova::Server',
            properties: { flavor: 'm1.small', networks: [{ network: 'public' }], block_device_mapping_v2: [{ volume_id: { get_resource: 'vol' }, boot_index: 0 }] },
          },
          att: { type: 'OS::Cinder::VolumeAttachment', properties: { instance_uuid: { get_resource: 'vm' }, volume_id: { get_resource: 'data' } } },
        },
        outputs: { vol: { value: { get_resource: 'vol' } }, data: { value: { get_resource: 'data' } }, vm: { value: { get_resource: 'vm' } } },
      },
    });
    await heat.waitFor(stack, ['CREATE_COMPLETE']);
    const [vol, data, vm] = await Promise.all(['vol', 'data', 'vm'].map((k) => heat.output(stack, k)));
    const s = (await server(vm)).body.server;
    expect(s.image).toBe('');
    expect(s['os-extended-volumes:volumes_attached'].map((v: any) => v.id).sort()).toEqual([vol, data].sort());
    expect((await cloud.call('volume', 'GET', `/volumes/${vol}`)).body.volume).toMatchObject({ status: 'in-use', bootable: 'true' });
    await heat.deleteStack(stack);
    for (const v of [vol, data]) expect((await cloud.call('volume', 'GET', `/volumes/${v}`)).status).toBe(404);
    expect((await server(vm)).status).toBe(404);
  });

  it('heal: mark-unhealthy and update replace the server; the port keeps its address, the old host is retired', async () => {
    const stack = name('heal');
    const { id } = await heat.createStack({ stack_name: stack, template: VDU });
    await heat.waitFor(stack, ['CREATE_COMPLETE']);
    const ip = await heat.output(stack, 'ip');
    const oldId = await heat.output(stack, 'id');
    const first = await connect(ip, 'ubuntu', 'ubuntu');
    await sshExec(first.client, 'touch /tmp/marker');
    const closed = new Promise<void>((resolve) => first.client.once('close', () => resolve()));

    expect((await heat.call('PATCH', `stacks/${stack}/${id}/resources/vdu`, { mark_unhealthy: true, resource_status_reason: 'heal' })).status).toBe(200);
    expect((await heat.call('PATCH', `stacks/${stack}/${id}`, {})).status).toBe(202);
    await heat.waitFor(`${stack}/${id}`, ['UPDATE_COMPLETE']);
    await closed;
    const newId = await heat.output(stack, 'id');
    expect(newId).not.toBe(oldId);
    expect(await heat.output(stack, 'ip')).toBe(ip);
    expect((await server(oldId)).status).toBe(404);
    const second = await connect(ip, 'ubuntu', 'ubuntu');
    expect(second.fingerprint).not.toBe(first.fingerprint);
    expect((await sshExec(second.client, 'test -f /tmp/marker')).code).toBe(1);
    const old = (await admin(sim, 'GET', `/servers/${oldId}/host`)).body;
    expect(old.commands.map((c: any) => c.command)).toEqual(['touch /tmp/marker']);
  });

  it('an image change rebuilds the same server (default image_update_policy): new image, fresh host at the same address', async () => {
    const stack = name('rebuild');
    const { id } = await heat.createStack({ stack_name: stack, template: VDU });
    await heat.waitFor(stack, ['CREATE_COMPLETE']);
    const ip = await heat.output(stack, 'ip');
    const serverId = await heat.output(stack, 'id');
    const first = await connect(ip, 'ubuntu', 'ubuntu');
    await sshExec(first.client, 'touch /tmp/marker');
    await heat.update(`${stack}/${id}`, { parameters: { image: 'ubuntu-22.04' } }, 'PATCH');
    expect(await heat.output(stack, 'id')).toBe(serverId);
    const images = (await cloud.call('image', 'GET', '/images?name=ubuntu-22.04')).body.images;
    expect((await server(serverId)).body.server.image.id).toBe(images[0].id);
    const second = await connect(ip, 'ubuntu', 'ubuntu');
    expect(second.fingerprint).not.toBe(first.fingerprint);
    expect((await sshExec(second.client, 'test -f /tmp/marker')).code).toBe(1);
    expect((await admin(sim, 'GET', `/servers/${serverId}`)).body.generation).toBe(1);
    expect((await admin(sim, 'GET', '/stats')).body.accepted['compute.server.action.rebuild']).toBeGreaterThanOrEqual(1);
  });

  it("Tacker's v2_userdata_standard sample (server group, volume type, boot volume, internal networks) creates and deletes", async () => {
    const dir = path.resolve(__dirname, '../../../shared/tacker-samples/v2_userdata_standard/BaseHOT/simple');
    const read = (f: string) => fs.readFileSync(path.join(dir, f), 'utf8');
    const stack = name('tacker');
    const nfv = {
      VDU: { VDU1: { computeFlavourId: 'm1.tiny', vcImageId: 'VDU1-image', locationConstraints: 'nova', name: 'VDU1-0' }, VDU2: { computeFlavourId: 'm1.small' }, 'VDU2-VirtualStorage': { vcImageId: 'VDU2-VirtualStorage-image' } },
      CP: { VDU1_CP1: { network: 'f0c82461-36b5-4d86-8322-b0bc19cda65f' }, VDU2_CP1: { network: 'f0c82461-36b5-4d86-8322-b0bc19cda65f', fixed_ips: [{ subnet: 'public-subnet' }] } },
    };
    await heat.createStack({ stack_name: stack, template: read('sample3.yaml'), files: { 'VDU1.yaml': read('nested/VDU1.yaml'), 'VDU2.yaml': read('nested/VDU2.yaml') }, parameters: { nfv } });
    await heat.waitFor(stack, ['CREATE_COMPLETE']);
    const servers = (await admin(sim, 'GET', '/servers')).body.filter((s: any) => s.name === 'VDU1-0' || s.name === 'VDU2');
    // Ports, not addresses: the sample's nested stacks get the internal networks but not their subnets, so Heat may
    // make a VNFC's port before its subnet exists, and that port has no address (as on Neutron; CI #38 saw 2 of 3).
    const portsOf = async (id: string) => (await cloud.call('network', 'GET', `/ports?device_id=${id}`)).body.ports.length;
    expect((await Promise.all(servers.map(async (s: any) => [s.name, s.status, await portsOf(s.id)]))).sort()).toEqual([['VDU1-0', 'ACTIVE', 3], ['VDU2', 'ACTIVE', 3]]);
    const vdu2 = (await server(servers.find((s: any) => s.name === 'VDU2').id)).body.server;
    expect(vdu2.server_groups).toHaveLength(1);
    const [volume] = vdu2['os-extended-volumes:volumes_attached'];
    expect((await cloud.call('volume', 'GET', `/volumes/${volume.id}`)).body.volume).toMatchObject({ status: 'in-use', multiattach: true, volume_type: expect.stringMatching(new RegExp(`^${stack}-VDU2-.*-VDU2-multi$`)) });
    await heat.deleteStack(stack);
    for (const s of servers) expect((await server(s.id)).status).toBe(404);
    expect((await cloud.call('compute', 'GET', '/os-server-groups', undefined, MV)).body.server_groups).toEqual([]);
  });

  it('deleting a stack leaves real 404s for its servers and ports, and closes the SSH listener', async () => {
    const stack = name('gone');
    const { id } = await heat.createStack({ stack_name: stack, template: VDU });
    await heat.waitFor(stack, ['CREATE_COMPLETE']);
    const ip = await heat.output(stack, 'ip');
    const serverId = await heat.output(stack, 'id');
    const portId = (await heat.resource(`${stack}/${id}`, 'cp')).physical_resource_id;
    await heat.deleteStack(stack);
    expect((await server(serverId)).body).toEqual({ itemNotFound: { code: 404, message: `Instance ${serverId} could not be found.` } });
    expect((await cloud.call('network', 'GET', `/ports/${portId}`)).body.NeutronError.type).toBe('PortNotFound');
    expect((await admin(sim, 'GET', `/servers?address=${ip}`)).body).toEqual([]);
    await expect(sshConnect(ip, sshPort, 'ubuntu', { password: 'ubuntu' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
