/**
 * The embedded Octavia (the real API, our `vimsim` provider, the data path as
 * TCP proxies in the simulator): the stock `openstack loadbalancer` CLI as a
 * project member, a listener, pool, two members (small TCP servers on
 * addresses of ports of the project's own subnet) and a TCP health monitor;
 * traffic through the VIP reaches both, a stopped member goes ERROR and
 * traffic goes to the other; Heat's OS::Octavia::* resources; containment
 * (another project sees nothing and cannot use the subnet; members on
 * 127.0.0.1 or on another project's subnet are a 400); a cascade delete
 * frees the VIP port. Loopback only; every server it opens is closed.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { HeatClient } from '../../infra/openstack/heat';
import { eventually } from '../support/api';
import { keystoneUser, type TestUser } from '../support/identity';
import { openstackCli } from '../support/openstack-cli';

const rnd = (n: number) => Math.floor(Math.random() * n);
const SECOND_OCTET = 100 + rnd(50);
const BACKEND_PORT = 20_000 + rnd(5_000);
const LISTENER_PORT = 25_000 + rnd(5_000);
let dir: string;
let owner: TestUser;
let other: TestUser;
const servers: net.Server[] = [];

/** `openstack <args>` as `user`; JSON output when the command has it. */
const openstack = (user: TestUser, args: string[], json = true): Promise<any> => openstackCli(user, dir).openstack(args, json);

/** A call to a service of the user's catalog: status and JSON body. */
async function api(user: TestUser, type: string, method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${(await user.session.endpoint(type)).replace(/\/+$/, '')}${p}`, {
    method, headers: { 'x-auth-token': await user.token(), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

async function ok(user: TestUser, type: string, method: string, p: string, body?: unknown): Promise<any> {
  const r = await api(user, type, method, p, body);
  if (r.status >= 300) throw new Error(`${method} ${p} -> ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}

const lbaas = (user: TestUser, method: string, p: string, body?: unknown) => api(user, 'load-balancer', method, `/v2/lbaas${p}`, body);

async function activeLb(user: TestUser, id: string): Promise<any> {
  return eventually(`load balancer ${id} ACTIVE`, async () => {
    const lb = (await lbaas(user, 'GET', `/loadbalancers/${id}`)).body.loadbalancer;
    if (lb.provisioning_status === 'ERROR') throw new Error(`load balancer ${id} went ERROR`);
    return lb.provisioning_status === 'ACTIVE' ? lb : undefined;
  }, 30_000, 100);
}

/** A project network with a /24 subnet and `ports` ports on it: the subnet and the ports' addresses. */
async function projectNetwork(user: TestUser, third: number, ports: number): Promise<{ subnet: string; addresses: string[] }> {
  const network = (await ok(user, 'network', 'POST', '/v2.0/networks', { network: { name: 'lb-net' } })).network.id;
  const cidr = `127.${SECOND_OCTET}.${third}.0/24`;
  const subnet = (await ok(user, 'network', 'POST', '/v2.0/subnets', { subnet: { network_id: network, cidr, ip_version: 4, name: 'lb-subnet' } })).subnet.id;
  const addresses: string[] = [];
  for (let i = 0; i < ports; i++) {
    const port = (await ok(user, 'network', 'POST', '/v2.0/ports', { port: { network_id: network, name: `member-${i}`, fixed_ips: [{ subnet_id: subnet }] } })).port;
    addresses.push(port.fixed_ips[0].ip_address);
  }
  return { subnet, addresses };
}

/** A TCP server that answers every connection with its tag. */
async function tagServer(host: string, tag: string, port = BACKEND_PORT): Promise<net.Server> {
  const srv = net.createServer((s) => {
    s.on('error', () => undefined); // health checks connect and go
    s.end(`${tag}\n`);
  });
  await new Promise<void>((resolve, reject) => srv.once('error', reject).listen(port, host, () => resolve()));
  servers.push(srv);
  return srv;
}

/** What one connection to host:port reads, or the error code. */
function fetchTag(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    let data = '';
    const s = net.connect({ host, port });
    s.setTimeout(3_000, () => s.destroy(new Error('ETIMEDOUT')));
    s.on('data', (d) => (data += d));
    s.on('close', () => resolve(data.trim() || 'EMPTY'));
    s.on('error', (e: NodeJS.ErrnoException) => (data = e.code ?? e.message));
  });
}

async function tags(host: string, port: number, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(await fetchTag(host, port));
  return out;
}

let subnet: string;
let addresses: string[];
let otherSubnet: string;
let otherAddress: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'octavia-'));
  const runId = Date.now().toString(36);
  [owner, other] = await Promise.all([
    keystoneUser(`lb-project-${runId}`, `lb-operator-${runId}`, 'member'),
    keystoneUser(`lb-other-${runId}`, `lb-other-operator-${runId}`, 'member'),
  ]);
  const third = rnd(250);
  ({ subnet, addresses } = await projectNetwork(owner, third, 2));
  ({ subnet: otherSubnet, addresses: [otherAddress] } = await projectNetwork(other, (third + 1) % 250, 1));
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  fs.rmSync(dir, { recursive: true, force: true });
});

test('CLI load balancer, members behind a TCP monitor, failover, containment, cascade delete', async () => {
  const t0 = Date.now();
  const created = await openstack(owner, ['loadbalancer', 'create', '--name', 'lb1', '--vip-subnet-id', subnet, '--wait']);
  const createMs = Date.now() - t0;
  expect(created.provisioning_status).toBe('ACTIVE');
  expect(created.provider).toBe('vimsim');
  const lbId: string = created.id;
  const vip: string = created.vip_address;
  expect(vip.startsWith(`127.${SECOND_OCTET}.`)).toBe(true);
  expect((await openstack(owner, ['loadbalancer', 'list'])).map((l: any) => l.id)).toContain(lbId);
  // the VIP is a real Neutron port of the project
  const vipPort = (await ok(owner, 'network', 'GET', `/v2.0/ports/${created.vip_port_id}`)).port;
  expect(vipPort.device_owner).toBe('Octavia');
  expect(vipPort.project_id).toBe(owner.projectId);

  const listener = (await lbaas(owner, 'POST', '/listeners', { listener: { loadbalancer_id: lbId, protocol: 'TCP', protocol_port: LISTENER_PORT } })).body.listener;
  await activeLb(owner, lbId);
  const pool = (await lbaas(owner, 'POST', '/pools', { pool: { listener_id: listener.id, protocol: 'TCP', lb_algorithm: 'ROUND_ROBIN' } })).body.pool;
  await activeLb(owner, lbId);
  const [a, b] = await Promise.all([tagServer(addresses[0], 'A'), tagServer(addresses[1], 'B')]);
  const members: string[] = [];
  for (const address of addresses) {
    const r = await lbaas(owner, 'POST', `/pools/${pool.id}/members`, { member: { address, protocol_port: BACKEND_PORT, subnet_id: subnet } });
    expect(r.status).toBe(201);
    members.push(r.body.member.id);
    await activeLb(owner, lbId);
  }
  const hm = await lbaas(owner, 'POST', '/healthmonitors', { healthmonitor: { pool_id: pool.id, type: 'TCP', delay: 1, timeout: 1, max_retries: 1, max_retries_down: 1 } });
  expect(hm.status).toBe(201);
  await activeLb(owner, lbId);

  expect(new Set(await tags(vip, LISTENER_PORT, 6))).toEqual(new Set(['A', 'B']));
  const status = async () => Object.fromEntries(
    ((await lbaas(owner, 'GET', `/pools/${pool.id}/members`)).body.members as any[]).map((m) => [m.address, m.operating_status]),
  );
  await eventually('both members ONLINE', async () => ((s) => (s[addresses[0]] === 'ONLINE' && s[addresses[1]] === 'ONLINE' ? s : undefined))(await status()), 15_000);

  // one member's server stops: ERROR, and every connection goes to the other
  await new Promise((r) => a.close(r));
  await eventually('member A ERROR', async () => ((s) => (s[addresses[0]] === 'ERROR' && s[addresses[1]] === 'ONLINE' ? s : undefined))(await status()), 15_000);
  expect(await tags(vip, LISTENER_PORT, 4)).toEqual(['B', 'B', 'B', 'B']);
  // the load balancer's own status follows its members' (pushed with the next health poll)
  await eventually('load balancer DEGRADED', async () => ((await lbaas(owner, 'GET', `/loadbalancers/${lbId}`)).body.loadbalancer.operating_status === 'DEGRADED' ? true : undefined), 15_000);

  // containment: the host's own services and other projects' addresses are no members; the other project sees nothing
  const refused = async (address: string, subnetId?: string) => {
    const r = await lbaas(owner, 'POST', `/pools/${pool.id}/members`, { member: { address, protocol_port: 5000, ...(subnetId ? { subnet_id: subnetId } : {}) } });
    await activeLb(owner, lbId);
    return r;
  };
  const local = await refused('127.0.0.1');
  expect(local.status).toBe(400);
  expect(local.body.faultstring).toMatch(/reserved for the cloud's own services/);
  expect((await refused(otherAddress, otherSubnet)).status).toBe(400);
  expect((await refused(otherAddress)).status).toBe(400);
  expect((await lbaas(other, 'GET', `/loadbalancers/${lbId}`)).status).toBe(403); // Octavia's answer for another project's
  expect(((await lbaas(other, 'GET', '/loadbalancers')).body.loadbalancers as any[]).map((l) => l.id)).not.toContain(lbId);
  const stolen = await lbaas(other, 'POST', '/loadbalancers', { loadbalancer: { name: 'steal', vip_subnet_id: subnet } });
  expect(stolen.status).toBe(400);
  expect(stolen.body.faultstring).toMatch(/No VIP subnet/);

  // cascade delete: proxies stopped, VIP port deleted
  await openstack(owner, ['loadbalancer', 'delete', '--cascade', '--wait', lbId], false);
  expect((await lbaas(owner, 'GET', `/loadbalancers/${lbId}`)).status).toBe(404);
  expect((await api(owner, 'network', 'GET', `/v2.0/ports/${created.vip_port_id}`)).status).toBe(404);
  expect(await fetchTag(vip, LISTENER_PORT)).toBe('ECONNREFUSED');
  await new Promise((r) => b.close(r));
  console.log(`octavia: loadbalancer create --wait (CLI) -> ACTIVE in ${createMs} ms`);
});

test('Heat OS::Octavia::* resources: a working load balancer, gone with the stack', async () => {
  const srv = await tagServer(addresses[1], 'H', BACKEND_PORT + 1);
  const heat = new HeatClient(owner.session);
  const template = {
    heat_template_version: '2018-08-31',
    resources: {
      lb: { type: 'OS::Octavia::LoadBalancer', properties: { vip_subnet: subnet } },
      listener: { type: 'OS::Octavia::Listener', properties: { loadbalancer: { get_resource: 'lb' }, protocol: 'TCP', protocol_port: LISTENER_PORT + 1 } },
      pool: { type: 'OS::Octavia::Pool', properties: { listener: { get_resource: 'listener' }, protocol: 'TCP', lb_algorithm: 'ROUND_ROBIN' } },
      member: { type: 'OS::Octavia::PoolMember', properties: { pool: { get_resource: 'pool' }, address: addresses[1], protocol_port: BACKEND_PORT + 1, subnet } },
      monitor: { type: 'OS::Octavia::HealthMonitor', properties: { pool: { get_resource: 'pool' }, type: 'TCP', delay: 1, timeout: 1, max_retries: 1 } },
    },
    outputs: { vip: { value: { get_attr: ['lb', 'vip_address'] } }, id: { value: { get_resource: 'lb' } } },
  };
  const name = `octavia-${Date.now().toString(36)}`;
  const { id } = await heat.createStack(name, { template });
  const stack = await eventually('stack CREATE_COMPLETE', async () => {
    const s = await heat.getStack(name, id);
    if (s?.stack_status.endsWith('FAILED')) throw new Error(`${s.stack_status}: ${s.stack_status_reason}`);
    return s?.stack_status === 'CREATE_COMPLETE' ? s : undefined;
  }, 60_000, 300);
  const out = (key: string) => (stack.outputs as any[]).find((o) => o.output_key === key).output_value;
  const lbId = out('id');
  expect((await activeLb(owner, lbId)).provider).toBe('vimsim');
  expect(await tags(out('vip'), LISTENER_PORT + 1, 2)).toEqual(['H', 'H']);
  await heat.deleteStack(name, id);
  await eventually('stack DELETE_COMPLETE', async () => {
    const s = await heat.getStack(name, id);
    if (s?.stack_status === 'DELETE_FAILED') throw new Error(`DELETE_FAILED: ${s.stack_status_reason}`);
    return !s || s.stack_status === 'DELETE_COMPLETE' ? true : undefined;
  }, 60_000, 300);
  expect((await lbaas(owner, 'GET', `/loadbalancers/${lbId}`)).status).toBe(404);
  expect(await fetchTag(out('vip'), LISTENER_PORT + 1)).toBe('ECONNREFUSED');
  await new Promise((r) => srv.close(r));
});
