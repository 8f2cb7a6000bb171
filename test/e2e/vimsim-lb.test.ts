/**
 * haproxy and keepalived on the simulator's machines, set up over real SSH as
 * Tacker's install_k8s_cluster.sh does on HA masters (modify_haproxy_conf,
 * modify_keepalived_conf, start_haproxy, start_keepalived), in front of small
 * real HTTP servers this file starts (no Kubernetes): three servers, the VIP
 * answering on the highest priority, moving to the next when its holder is
 * stopped (Nova os-stop) and when the holder's haproxy is stopped
 * (track_script), and back when the first one starts again (preemption).
 * Fixed addresses far from the others: servers 127.20.240.11-13, the VIP
 * 127.20.240.100 (reserved with a Neutron port, as Tacker's HOT does),
 * backends 127.31.240.1-2 (outside every seeded subnet).
 */
import http from 'node:http';
import type { Client } from 'ssh2';
import { PUBLIC_NETWORK_ID, seedImageId } from '@nfv-orchestrator/vimsim/store/seed';
import { admin, CloudClient, startTestSim, type TestSim } from '../support/vimsim-helpers';
import { tackerHaproxyCfg, tackerKeepalivedConf } from '@nfv-orchestrator/vimsim/test/support/tacker-lb-configs';
import { must, sh } from '../support/vimsim-node-shell';
import { freePort, sshConnect } from '../support/vimsim-ssh-helpers';

const PASSWORD = 'Lb-pw-1!';
const USER_DATA = `#cloud-config\npassword: ${PASSWORD}\nchpasswd: { expire: False }\nssh_pwauth: True\n`;
const MV = { 'X-OpenStack-Nova-API-Version': '2.96' };
const VIP = '127.20.240.100';
const MASTER_IPS = ['127.20.240.11', '127.20.240.12', '127.20.240.13'];
const BACKENDS = ['127.31.240.1', '127.31.240.2'];
const API_PORT = 6443;
const FRONT_PORT = 16443;

interface Node { id: string; name: string; address: string; ssh: Client }

/** One HTTP request on a connection of its own: the body, or what went wrong. */
function get(host: string, port = FRONT_PORT): Promise<string> {
  return new Promise((resolve) => {
    const req = http.get({ host, port, path: '/', agent: false, headers: { connection: 'close' }, timeout: 2000 }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve(body));
      res.on('error', (e: NodeJS.ErrnoException) => resolve(`ERROR ${e.code ?? e.message}`));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e: NodeJS.ErrnoException) => resolve(`ERROR ${e.code ?? e.message}`));
  });
}

describe('vimsim haproxy + keepalived (Tacker HA masters)', () => {
  let sim: TestSim;
  let nova: CloudClient;
  let port: number;
  const nodes: Node[] = [];
  const backends: http.Server[] = [];

  const until = async <T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number): Promise<{ value: T; ms: number }> => {
    const started = Date.now();
    for (;;) {
      const value = await fn();
      if (value !== undefined) return { value, ms: Date.now() - started };
      if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  /** The address of the host holding the VIP, per the simulator's admin view. */
  const holder = async (): Promise<string | null> => {
    const lb = (await admin(sim, 'GET', '/lb')).body;
    return lb.routers.find((r: any) => r.vips.includes(VIP))?.master?.address ?? null;
  };
  /** Until `address` holds the VIP and a request through VIP:16443 reaches a backend. */
  const vipOn = (address: string, timeoutMs: number) =>
    until(`the VIP on ${address}`, async () => ((await holder()) === address && (await get(VIP)).startsWith('backend ') ? address : undefined), timeoutMs);
  const connect = async (n: Node) => {
    n.ssh = (await sshConnect(n.address, port, 'ubuntu', { password: PASSWORD })).client;
  };

  const allowVip = async (serverId: string, addresses: string[]) => {
    const [p] = (await nova.call('network', 'GET', `/ports?device_id=${serverId}`)).body.ports;
    expect((await nova.call('network', 'PUT', `/ports/${p.id}`, { port: { allowed_address_pairs: addresses.map((ip_address) => ({ ip_address })) } })).status).toBe(200);
  };

  beforeAll(async () => {
    for (const [i, ip] of BACKENDS.entries()) {
      const server = http.createServer((_req, res) => res.end(`backend ${i + 1}`));
      await new Promise<void>((r) => server.listen(API_PORT, ip, r));
      backends.push(server);
    }
    port = await freePort();
    sim = await startTestSim({ delayMs: 20, sshPort: port });
    nova = await CloudClient.connect(sim);
    // the VIP's own port, as Tacker's HOT reserves it: no server gets the address
    const vipPort = await nova.call('network', 'POST', '/ports', { port: { network_id: PUBLIC_NETWORK_ID, name: 'vip', fixed_ips: [{ ip_address: VIP }] } });
    expect(vipPort.status).toBe(201);
    for (const [i, ip] of MASTER_IPS.entries()) {
      const res = await nova.call('compute', 'POST', '/servers', {
        server: { name: `lb-master-${i}`, imageRef: seedImageId('ubuntu-20.04'), flavorRef: '2', networks: [{ uuid: PUBLIC_NETWORK_ID, fixed_ip: ip }], user_data: Buffer.from(USER_DATA).toString('base64') },
      }, MV);
      expect(res.status).toBe(202);
      await nova.until('compute', `/servers/${res.body.server.id}`, (b) => b.server.status === 'ACTIVE', 10_000, MV);
      // as Tacker's HOT: the master's port may carry the VIP (Neutron's port security drops it otherwise)
      await allowVip(res.body.server.id, [VIP]);
      const n: Node = { id: res.body.server.id, name: `lb-master-${i}`, address: ip, ssh: undefined as unknown as Client };
      await connect(n);
      nodes.push(n);
    }
  });

  afterAll(async () => {
    for (const n of nodes) n.ssh?.end();
    await sim?.close();
    for (const b of backends) {
      b.closeAllConnections();
      await new Promise((r) => b.close(r));
    }
    // nothing of the simulator's load balancing listens any more
    expect(await get(VIP)).toBe('ERROR ECONNREFUSED');
    for (const ip of MASTER_IPS) expect(await get(ip)).toBe('ERROR ECONNREFUSED');
  });

  it('installs haproxy (running, default config) and keepalived (enabled, waiting for its config) as Ubuntu 20.04 does', async () => {
    for (const n of nodes) {
      const r = await must(n, 'sudo apt-get install -y haproxy keepalived');
      expect(r.stdout).toContain('Setting up haproxy (2.0.33-0ubuntu0.1) ...');
      expect(r.stdout).toContain('Setting up keepalived (1:2.0.19-2ubuntu0.2) ...');
      expect((await sh(n, 'systemctl is-active haproxy keepalived')).stdout).toBe('active\ninactive\n');
      expect((await sh(n, 'systemctl is-enabled haproxy keepalived')).stdout).toBe('enabled\nenabled\n');
    }
    // the default haproxy.cfg has no frontend: nothing answers yet
    expect(await get(MASTER_IPS[0])).toBe('ERROR ECONNREFUSED');
  });

  it('runs them as configured: haproxy on each master, the VIP on the highest priority after the election', async () => {
    for (const [i, n] of nodes.entries()) {
      await must(n, 'sudo tee /etc/haproxy/haproxy.cfg >/dev/null', tackerHaproxyCfg(BACKENDS, FRONT_PORT, API_PORT));
      // start_haproxy: start is a no-op on the running unit; `ss` finds nothing, so Tacker restarts it
      expect((await must(n, 'sudo systemctl enable haproxy && sudo systemctl start haproxy && sudo systemctl status haproxy | grep Active')).stdout).toContain('active (running)');
      await must(n, 'sudo systemctl restart haproxy');
      // haproxy answers on the master's own address at once
      expect(await get(n.address)).toMatch(/^backend [12]$/);
      await must(n, 'sudo tee /etc/keepalived/keepalived.conf >/dev/null', tackerKeepalivedConf(i, VIP));
      expect((await must(n, 'sudo systemctl enable keepalived.service && sudo systemctl start keepalived.service && sudo systemctl status keepalived.service | grep Active')).stdout).toContain('running');
    }
    // keepalived 2.0 starts as a backup: the first master takes the VIP after 3 × 1 s + (256 − 103)/256 s
    const { ms } = await vipOn(MASTER_IPS[0], 8000);
    expect(ms).toBeLessThan(5000);
    const seen = new Set<string>();
    for (let i = 0; i < 4; i++) seen.add(await get(VIP));
    expect([...seen].sort()).toEqual(['backend 1', 'backend 2']);
    const lb = (await admin(sim, 'GET', `/servers/${MASTER_IPS[0]}/lb`)).body;
    expect(lb.heldVips).toEqual([VIP]);
    expect(lb.haproxy.listening).toEqual(expect.arrayContaining([{ address: MASTER_IPS[0], port: FRONT_PORT, frontend: 'kubernetes-apiserver', backend: 'kubernetes-apiserver' }, { address: VIP, port: FRONT_PORT, frontend: 'kubernetes-apiserver', backend: 'kubernetes-apiserver' }]));
    expect(lb.keepalived.instances).toEqual([expect.objectContaining({ name: 'VRRP1', virtualRouterId: 51, priority: 103, state: 'master' })]);
  });

  it('moves the VIP to the next master within 8 s when its holder is stopped', async () => {
    const started = Date.now();
    expect((await nova.call('compute', 'POST', `/servers/${nodes[0].id}/action`, { 'os-stop': null }, MV)).status).toBe(202);
    await vipOn(MASTER_IPS[1], 8000);
    const took = Date.now() - started;
    console.log(`VIP moved to ${MASTER_IPS[1]} ${took} ms after os-stop`);
    expect(took).toBeLessThan(8000);
    expect(await get(MASTER_IPS[0])).toMatch(/^ERROR/);
  });

  it("gives the VIP away when the holder's haproxy stops (track_script killall -0 haproxy)", async () => {
    const started = Date.now();
    await must(nodes[1], 'sudo systemctl stop haproxy');
    await vipOn(MASTER_IPS[2], 8000);
    console.log(`VIP moved to ${MASTER_IPS[2]} ${Date.now() - started} ms after haproxy stopped`);
    // keepalived itself still runs there, in FAULT
    expect((await sh(nodes[1], 'systemctl is-active keepalived')).stdout).toBe('active\n');
    const lb = (await admin(sim, 'GET', `/servers/${MASTER_IPS[1]}/lb`)).body;
    expect(lb.keepalived.instances[0].state).toBe('fault');
    expect(lb.heldVips).toEqual([]);
  });

  it('fails a start on a config haproxy refuses, and the first master takes the VIP back when it boots again', async () => {
    const bad = await sh(nodes[1], 'sudo tee /etc/haproxy/haproxy.cfg >/dev/null && sudo systemctl start haproxy', tackerHaproxyCfg(BACKENDS, FRONT_PORT, API_PORT).replace('balance     roundrobin', 'balance roundrobin\n    frobnicate yes'));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Job for haproxy.service failed because the control process exited with error code.');
    expect(bad.stderr).toMatch(/\[ALERT\] \d{3}\/\d{6} \(\d+\) : parsing \[\/etc\/haproxy\/haproxy.cfg:\d+\] : unknown keyword 'frobnicate' in 'backend' section/);
    expect((await sh(nodes[1], 'systemctl is-active haproxy')).stdout).toBe('failed\n');

    expect((await nova.call('compute', 'POST', `/servers/${nodes[0].id}/action`, { 'os-start': null }, MV)).status).toBe(202);
    await nova.until('compute', `/servers/${nodes[0].id}`, (b) => b.server.status === 'ACTIVE', 10_000, MV);
    // enabled units start at boot; the higher priority preempts after its master-down interval
    const { ms } = await vipOn(MASTER_IPS[0], 8000);
    console.log(`VIP back on ${MASTER_IPS[0]} ${ms} ms after it booted`);
    await connect(nodes[0]);
    expect((await sh(nodes[0], 'systemctl is-active haproxy keepalived')).stdout).toBe('active\nactive\n');
    const routers = (await admin(sim, 'GET', '/lb')).body.routers;
    expect(routers).toEqual([expect.objectContaining({ virtualRouterId: 51, vips: [VIP], master: expect.objectContaining({ address: MASTER_IPS[0] }) })]);
  });

  it("does not carry the VIP on a server whose port does not allow it (port security), even when VRRP elects it", async () => {
    await allowVip(nodes[0].id, []);
    await must(nodes[0], 'sudo systemctl restart keepalived');
    // the others stand by; the first master wins again after its master-down interval, but its port drops the VIP's traffic
    await until('the first master elected again', async () => ((await admin(sim, 'GET', '/lb')).body.routers[0]?.master?.address === MASTER_IPS[0] ? true : undefined), 8000);
    expect((await admin(sim, 'GET', `/servers/${MASTER_IPS[0]}/lb`)).body.heldVips).toEqual([]);
    expect(await get(VIP)).toMatch(/^ERROR/);
    await allowVip(nodes[0].id, [VIP]);
    await must(nodes[0], 'sudo systemctl restart keepalived');
    await vipOn(MASTER_IPS[0], 8000);
  });
});
