/**
 * The product's OpenStack client against the embedded cloud's real Keystone
 * v3 and Heat v1: token caching and re-authentication, stack lifecycle,
 * PATCH/PUT updates, resources with nested_depth, mark_unhealthy, events.
 */
import { HeatClient } from '../../infra/openstack/heat';
import { OpenStackHttpError } from '../../infra/openstack/http';
import { KeystoneSession } from '../../infra/openstack/keystone';
import { readState } from '../harness/state';

let heat: HeatClient;
let session: KeystoneSession;
const NAME = `vnf-client-${process.pid}`;

const nested = `heat_template_version: 2013-05-23
parameters: { image: { type: string } }
resources:
  VDU1:
    type: OS::Nova::Server
    properties: { flavor: m1.tiny, image: { get_param: image }, networks: [{ port: { get_resource: VDU1_CP1 } }] }
  VDU1_CP1:
    type: OS::Neutron::Port
    properties: { network: public }
`;
const top = (count: number) => ({
  heat_template_version: '2013-05-23',
  parameters: { nfv: { type: 'json' } },
  resources: Object.fromEntries(Array.from({ length: count }, (_, i) => [`VDU1-${i}`, {
    type: 'VDU1.yaml', properties: { image: { get_param: ['nfv', 'VDU', `VDU1-${i}`, 'vcImageId'] } },
  }])),
});
const IMAGE = 'cirros-0.5.2-x86_64-disk';
const params = (image: string) => ({ nfv: { VDU: { 'VDU1-0': { vcImageId: image }, 'VDU1-1': { vcImageId: image } } } });

async function waitStatus(name: string, id: string, want: string): Promise<string> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    const s = await heat.getStack(name, id);
    if (s && (s.stack_status === want || s.stack_status.endsWith('FAILED'))) return s.stack_status;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`stack ${name} never reached ${want}`);
}

beforeAll(() => {
  session = new KeystoneSession({ authUrl: readState().keystoneUrl, username: 'admin', password: readState().adminPassword, project: 'admin', region: 'RegionOne' });
  heat = new HeatClient(session);
});

test('stack lifecycle with nested templates, updates, heal marking and events', async () => {
  const { id } = await heat.createStack(NAME, { template: top(1), files: { 'VDU1.yaml': nested }, parameters: params(IMAGE) });
  expect(await waitStatus(NAME, id, 'CREATE_COMPLETE')).toBe('CREATE_COMPLETE');
  expect((await heat.findStack(NAME))?.id).toBe(id);
  expect(await heat.findStack('no-such-stack')).toBeNull();

  let resources = await heat.listResources(NAME, id, 2);
  const server = resources.find((r) => r.resource_type === 'OS::Nova::Server')!;
  expect(server.parent_resource).toBe('VDU1-0');
  const stackLink = server.links!.find((l) => l.rel === 'stack')!.href.split('/').slice(-2);

  // PATCH keeps the template and adds a VNFC via a new template; PUT replaces.
  await heat.updateStack(NAME, id, { template: top(2), parameters: params(IMAGE) }, 'PATCH');
  expect(await waitStatus(NAME, id, 'UPDATE_COMPLETE')).toBe('UPDATE_COMPLETE');
  resources = await heat.listResources(NAME, id, 2);
  expect(resources.filter((r) => r.resource_type === 'OS::Nova::Server')).toHaveLength(2);

  // mark_unhealthy on the nested stack's server, then an update of the top stack replaces it
  await heat.markUnhealthy(stackLink[0], stackLink[1], 'VDU1', 'heal test');
  await heat.updateStack(NAME, id, { template: top(2), files: { 'VDU1.yaml': nested }, parameters: params(IMAGE) }, 'PUT');
  expect(await waitStatus(NAME, id, 'UPDATE_COMPLETE')).toBe('UPDATE_COMPLETE');
  resources = await heat.listResources(NAME, id, 2);
  const healed = resources.find((r) => r.resource_type === 'OS::Nova::Server' && r.parent_resource === 'VDU1-0')!;
  expect(healed.physical_resource_id).not.toBe(server.physical_resource_id);

  const port = await heat.getResource(stackLink[0], stackLink[1], 'VDU1_CP1');
  expect(JSON.stringify(port.attributes)).toMatch(/ip_address/);
  expect((await heat.events(NAME, id)).length).toBeGreaterThan(0);

  await heat.deleteStack(NAME, id);
  expect(await waitStatus(NAME, id, 'DELETE_COMPLETE')).toBe('DELETE_COMPLETE');
  expect(await heat.findStack(NAME)).toBeNull();
  await heat.deleteStack(NAME, id); // idempotent
});

test('a revoked token is replaced on the next call (re-auth on 401)', async () => {
  const fresh = new KeystoneSession({ authUrl: readState().keystoneUrl, username: 'admin', password: readState().adminPassword, project: 'admin', region: 'RegionOne' });
  const before = (await fresh.getToken()).value;
  // Revoked before Heat ever saw it (Heat caches tokens it has validated).
  const r = await fetch(`${readState().keystoneUrl}/auth/tokens`, { method: 'DELETE', headers: { 'x-auth-token': before, 'x-subject-token': before } });
  expect(r.status).toBe(204);
  expect(await new HeatClient(fresh).findStack('anything')).toBeNull(); // 401 -> new token -> answer
  expect((await fresh.getToken()).value).not.toBe(before);
});

test('bad credentials and bad templates surface as errors with the VIM\'s reason', async () => {
  const bad = new HeatClient(new KeystoneSession({ authUrl: readState().keystoneUrl, username: 'admin', password: 'nope', project: 'admin', region: 'RegionOne' }));
  await expect(bad.findStack('x')).rejects.toThrow(/401/);
  const e = await heat.createStack('vnf-bad', { template: { heat_template_version: '2013-05-23', resources: { x: { type: 'OS::No::Such' } } } }).catch((err) => err);
  expect(e).toBeInstanceOf(OpenStackHttpError);
  expect((e as OpenStackHttpError).status).toBe(400);
  expect((e as OpenStackHttpError).detail).toMatch(/OS::No::Such/);
});
