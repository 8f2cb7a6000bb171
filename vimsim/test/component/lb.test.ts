/**
 * The simulator's load-balancing parts on their own (vimsim/lb): the TCP
 * proxy with real sockets on 127.31.x (round robin, health checks taking a
 * dead backend out and back after `rise`, haproxy's initial state, a failed
 * connect redispatched, listeners added and removed, close()), the VRRP
 * registry's elections and timings (fast advert_int), and the config parsers
 * on what Tacker's install_k8s_cluster.sh writes.
 */
import net from 'node:net';
import { freePort } from '@nfv-orchestrator/lib/free-port';
import { parseHaproxyConfig } from '../../lb/haproxy-config';
import { parseKeepalivedConfig } from '../../lb/keepalived-config';
import { tackerHaproxyCfg, tackerKeepalivedConf } from '../support/tacker-lb-configs';
import { scriptTarget } from '../../lb/keepalived';
import { TcpProxy } from '../../lb/tcp-proxy';
import { masterDownMs, skewMs, VrrpRegistry, type VrrpMemberSpec, type VrrpMembership } from '../../lb/vrrp';

jest.setTimeout(30_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => boolean, timeoutMs = 5000): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
  return Date.now() - started;
}

/** A backend that says its name and closes; counts every connection (health checks too). */
class NamedServer {
  server?: net.Server;
  connections = 0;
  constructor(readonly name: string, readonly host: string, readonly port: number) {}
  start(): Promise<void> {
    this.server = net.createServer((s) => {
      this.connections++;
      s.on('error', () => undefined);
      s.end(this.name);
    });
    return new Promise((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.port, this.host, () => resolve());
    });
  }
  stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    return new Promise((resolve) => (s ? s.close(() => resolve()) : resolve()));
  }
}

/** What a client reads from host:port before the far end closes; 'REFUSED' / 'CLOSED' (nothing came) otherwise. */
function ask(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    let data = '';
    s.on('data', (d) => (data += d.toString()));
    s.on('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED' ? 'REFUSED' : `ERROR ${err.code}`));
    s.on('close', () => resolve(data || 'CLOSED'));
    s.setTimeout(3000, () => s.destroy());
  });
}

describe('TcpProxy', () => {
  let port: number;
  const servers: NamedServer[] = [];
  const proxies: TcpProxy[] = [];
  const backend = (name: string, host: string) => {
    const s = new NamedServer(name, host, port);
    servers.push(s);
    return s;
  };
  const proxy = (p: TcpProxy) => (proxies.push(p), p);

  beforeAll(async () => {
    port = await freePort();
  });
  afterEach(async () => {
    await Promise.all(proxies.splice(0).map((p) => p.close()));
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });

  it('spreads connections round robin, takes a dead backend out after fall checks and back after rise', async () => {
    const [b1, b2, b3] = [backend('b1', '127.31.241.1'), backend('b2', '127.31.241.2'), backend('b3', '127.31.241.3')];
    await Promise.all([b1, b2, b3].map((b) => b.start()));
    const states: string[] = [];
    const p = proxy(new TcpProxy({
      name: 'api',
      backends: [b1, b2, b3].map((b) => ({ name: b.name, host: b.host, port })),
      interMs: 100,
      onBackendState: (b) => states.push(`${b.name} ${b.up ? 'UP' : 'DOWN'}`),
    }));
    await p.listen('127.31.240.1', port);
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) seen.push(await ask('127.31.240.1', port));
    expect(seen).toEqual(['b1', 'b2', 'b3', 'b1', 'b2', 'b3']);
    // every backend fully up after a passed check (health rise+fall-1 = 4)
    await until('checks passed', () => p.backends().every((b) => b.lastCheck?.ok && b.health === 4));

    await b2.stop();
    const killed = Date.now();
    // still up until three checks failed (meanwhile a refused connect is redispatched to the next one)
    const downAfter = await until('b2 down', () => !p.backends()[1].up, 3000);
    expect(downAfter).toBeGreaterThanOrEqual(150);
    expect(Date.now() - killed).toBeLessThan(1500);
    expect(p.backends()[1]).toMatchObject({ up: false, health: 0, lastCheck: { ok: false, error: 'Connection refused' } });
    const without: string[] = [];
    for (let i = 0; i < 4; i++) without.push(await ask('127.31.240.1', port));
    expect(without.sort()).toEqual(['b1', 'b1', 'b3', 'b3']);

    await b2.start();
    const backAfter = await until('b2 up', () => p.backends()[1].up, 3000);
    // rise 2: two passed checks, 100 ms apart
    expect(backAfter).toBeLessThan(1000);
    const again: string[] = [];
    for (let i = 0; i < 3; i++) again.push(await ask('127.31.240.1', port));
    expect(again.sort()).toEqual(['b1', 'b2', 'b3']);
    expect(states).toEqual(['b2 DOWN', 'b2 UP']);
  });

  it('starts a backend UP with health = rise, so the first failed check takes it out (haproxy)', async () => {
    const b1 = backend('b1', '127.31.242.1');
    await b1.start();
    const p = proxy(new TcpProxy({ backends: [{ name: 'dead', host: '127.31.242.2', port }, { name: 'b1', host: b1.host, port }], interMs: 200 }));
    expect(p.backends().map((b) => [b.up, b.health])).toEqual([[true, 2], [true, 2]]);
    // the first backend's first check runs at once, the second's half an interval later (spread)
    await until('dead down', () => !p.backends()[0].up, 150);
    expect(p.backends()[0].lastCheck?.ok).toBe(false);
  });

  it('redispatches a refused connect to another backend once (retries), and closes the client without', async () => {
    const b2 = backend('b2', '127.31.243.2');
    await b2.start();
    // no health check on the dead one: only the connect tells
    const backends = [{ name: 'dead', host: '127.31.243.1', port, check: false }, { name: 'b2', host: b2.host, port, check: false }];
    const retrying = proxy(new TcpProxy({ backends, retries: 1 }));
    await retrying.listen('127.31.240.2', port);
    expect([await ask('127.31.240.2', port), await ask('127.31.240.2', port)]).toEqual(['b2', 'b2']);
    const strict = proxy(new TcpProxy({ backends, retries: 0 }));
    await strict.listen('127.31.240.3', port);
    expect([await ask('127.31.240.3', port), await ask('127.31.240.3', port)]).toEqual(['CLOSED', 'b2']);
  });

  it('adds and removes listeners at run time, dropping what a removed one accepted', async () => {
    // a backend that keeps its connections open
    const held: net.Socket[] = [];
    const quiet = net.createServer((s) => held.push(s.on('error', () => undefined)));
    await new Promise<void>((r) => quiet.listen(port, '127.31.244.1', r));
    try {
      const p = proxy(new TcpProxy({ backends: [{ name: 'quiet', host: '127.31.244.1', port }], interMs: 1000 }));
      await p.listen('127.31.240.4', port);
      await p.listen('127.31.240.5', port);
      await p.listen('127.31.240.5', port); // again: a no-op
      expect(p.listening()).toEqual([{ host: '127.31.240.4', port }, { host: '127.31.240.5', port }]);
      const open = net.connect({ host: '127.31.240.5', port });
      const closed = new Promise<void>((r) => open.on('close', () => r()));
      open.on('error', () => undefined);
      await until('backend connection', () => held.length > 0);
      await p.unlisten('127.31.240.5', port);
      await closed;
      expect(await ask('127.31.240.5', port)).toBe('REFUSED');
      expect(p.listening()).toEqual([{ host: '127.31.240.4', port }]);
      const other = net.connect({ host: '127.31.240.4', port });
      other.on('error', () => undefined);
      await new Promise((r) => other.once('connect', r));
      other.destroy();
      // a bind that fails is the caller's to know
      await expect(p.listen('127.31.244.1', port)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      for (const s of held) s.destroy();
      await new Promise((r) => quiet.close(r));
    }
  });

  it('close() leaves nothing listening and checks nothing more', async () => {
    const b1 = backend('b1', '127.31.245.1');
    await b1.start();
    const p = new TcpProxy({ backends: [{ name: 'b1', host: b1.host, port }], interMs: 50 });
    await p.listen('127.31.240.6', port);
    await p.listen('127.31.240.7', port);
    const open = net.connect({ host: '127.31.240.6', port });
    open.on('error', () => undefined);
    await until('checked', () => b1.connections >= 2);
    await p.close();
    expect(await ask('127.31.240.6', port)).toBe('REFUSED');
    expect(await ask('127.31.240.7', port)).toBe('REFUSED');
    const count = b1.connections;
    await sleep(200);
    expect(b1.connections).toBe(count);
    await expect(p.listen('127.31.240.6', port)).rejects.toThrow('closed');
    open.destroy();
  });
});

describe('VrrpRegistry', () => {
  const ADV = 100;
  let registry: VrrpRegistry;
  let events: string[];
  const members: VrrpMembership[] = [];

  beforeEach(() => {
    registry = new VrrpRegistry();
    events = [];
  });
  afterEach(() => {
    registry.close();
    members.splice(0);
  });

  const join = (host: string, priority: number, over: Partial<VrrpMemberSpec> & { health?: { ok: boolean } } = {}) => {
    const health = over.health ?? { ok: true };
    const m = registry.join({
      hostId: host,
      segment: 'net-a',
      address: `127.31.250.${priority}`,
      instance: 'VRRP1',
      virtualRouterId: 51,
      vips: ['127.31.250.100'],
      priority,
      advertIntMs: ADV,
      healthy: () => health.ok,
      onHolding: (held) => events.push(`${host} ${held ? '+' : '-'}`),
      ...over,
    });
    members.push(m);
    return m;
  };
  const holder = () => registry.holderOf('127.31.250.100');

  it('elects the highest priority after the master-down interval, then fails over, preempts and tracks health', async () => {
    expect(masterDownMs(103, ADV)).toBeCloseTo(300 + (153 * ADV) / 256);
    const a = join('a', 103);
    const b = join('b', 102);
    join('c', 101);
    const t0 = Date.now();
    await sleep(250);
    // as keepalived 2.0 starts a `state MASTER` instance: a backup until its timer runs out
    expect(holder()).toBeUndefined();
    const elected = await until('a elected', () => holder() === 'a', 2000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(Math.floor(masterDownMs(103, ADV)) - 5);
    expect(Date.now() - t0).toBeLessThan(masterDownMs(103, ADV) + 200);
    expect(elected).toBeDefined();
    expect(events).toEqual(['a +']);
    expect(a.state).toBe('master');
    expect(b.state).toBe('backup');

    // a power cut: no priority 0 advert, the backups wait Master_Down_Interval after a's last advert
    let t = Date.now();
    a.leave('silent');
    expect(holder()).toBeUndefined();
    await until('b took over', () => holder() === 'b', 2000);
    const silent = Date.now() - t;
    expect(silent).toBeGreaterThanOrEqual(masterDownMs(102, ADV) - ADV - 5);
    expect(silent).toBeLessThan(masterDownMs(102, ADV) + 150);

    // a clean stop: the priority 0 advert, the backup takes over after its Skew_Time
    t = Date.now();
    b.leave('graceful');
    await until('c took over', () => holder() === 'c', 2000);
    expect(Date.now() - t).toBeLessThan(skewMs(101, ADV) + 150);

    // a higher priority coming back preempts after its master-down interval; the old master lets go first
    t = Date.now();
    const a2 = join('a', 103);
    await sleep(200);
    expect(holder()).toBe('c');
    await until('a preempted', () => holder() === 'a', 2000);
    expect(Date.now() - t).toBeGreaterThanOrEqual(Math.floor(masterDownMs(103, ADV)) - 5);
    expect(events).toEqual(['a +', 'a -', 'b +', 'b -', 'c +', 'c -', 'a +']);
    expect(registry.view()).toEqual([expect.objectContaining({ virtualRouterId: 51, vips: ['127.31.250.100'], master: expect.objectContaining({ hostId: 'a' }) })]);
    a2.leave('graceful');
  });

  it('gives the VIPs away when the master turns unhealthy (FAULT), and takes them back when healthy', async () => {
    const health = { ok: true };
    const a = join('a', 103, { health });
    join('b', 101);
    await until('a elected', () => holder() === 'a', 2000);
    health.ok = false;
    a.healthChanged();
    expect(a.state).toBe('fault');
    expect(holder()).toBeUndefined();
    const t = Date.now();
    await until('b took over', () => holder() === 'b', 2000);
    expect(Date.now() - t).toBeLessThan(skewMs(101, ADV) + 150);
    health.ok = true;
    a.healthChanged();
    expect(a.state).toBe('backup');
    await until('a back', () => holder() === 'a', 2000);
    expect(events).toEqual(['a +', 'a -', 'b +', 'b -', 'a +']);
  });

  it('breaks a tie by the higher address, keeps routers with other VIPs apart, and stays silent once closed', async () => {
    join('low', 100, { address: '127.31.250.9' });
    join('high', 100, { address: '127.31.250.10' });
    // same VRID, other addresses: another router (keepalived drops adverts whose address list differs)
    join('other', 50, { vips: ['127.31.250.200'] });
    await until('both routers elected', () => holder() !== undefined && registry.holderOf('127.31.250.200') !== undefined, 2000);
    expect(holder()).toBe('high');
    expect(registry.holderOf('127.31.250.200')).toBe('other');
    expect(events.sort()).toEqual(['high +', 'other +']);
    // same VRID and VIP on another network: another router too (VRRP adverts stay on their segment)
    join('elsewhere', 10, { segment: 'net-b' });
    await until('the other network elects its own', () => events.includes('elsewhere +'), 2000);
    expect(registry.view()).toHaveLength(3);
    expect(holder()).toBe('high');

    const late = new VrrpRegistry();
    late.join({ hostId: 'x', segment: 'net-a', address: '127.31.250.1', instance: 'V', virtualRouterId: 1, vips: ['127.31.250.1'], priority: 200, advertIntMs: 10, healthy: () => true, onHolding: () => events.push('late') });
    late.close();
    await sleep(100);
    expect(events).not.toContain('late');
  });
});

describe('config parsers', () => {
  const TACKER_HAPROXY = tackerHaproxyCfg(['127.31.0.11', '127.31.0.12']);

  it("reads Tacker's haproxy.cfg and refuses what haproxy (or the simulator) refuses", () => {
    const cfg = parseHaproxyConfig(TACKER_HAPROXY);
    if ('errors' in cfg) throw new Error(cfg.errors.join('\n'));
    const [fe, be, stats] = cfg.proxies;
    expect(fe).toMatchObject({ kind: 'frontend', mode: 'tcp', binds: [{ address: '*', port: 16443 }], defaultBackend: 'kubernetes-apiserver', timeouts: { connect: 5000, client: 50000 } });
    expect(be.servers).toEqual([
      expect.objectContaining({ name: 'master11', host: '127.31.0.11', port: 6443, check: true }),
      expect.objectContaining({ name: 'master12', host: '127.31.0.12', port: 6443, check: true }),
    ]);
    expect(stats).toMatchObject({ kind: 'listen', mode: 'http', stats: true });

    const bad = (text: string) => {
      const r = parseHaproxyConfig(text);
      return 'errors' in r ? r.errors.join('\n') : 'accepted';
    };
    expect(bad(TACKER_HAPROXY.replace('balance     roundrobin', 'balanse roundrobin'))).toMatch(/parsing \[\/etc\/haproxy\/haproxy.cfg:\d+\] : unknown keyword 'balanse' in 'backend' section/);
    expect(bad(TACKER_HAPROXY.replace('default_backend      kubernetes-apiserver', 'default_backend nope'))).toContain("Proxy 'kubernetes-apiserver': unable to find required default_backend: 'nope'.");
    expect(bad(TACKER_HAPROXY.replace('    mode                 tcp\n', ''))).toContain("Proxy 'kubernetes-apiserver': mode http is not supported by the simulated haproxy (tcp mode only).");
    expect(bad(TACKER_HAPROXY.replace('127.31.0.12:6443', 'master-twelve:6443'))).toContain("could not resolve address 'master-twelve:6443'");
  });

  it("reads Tacker's keepalived.conf one keyword per line, as keepalived 2.0 does", () => {
    const text = tackerKeepalivedConf(1, '127.31.0.100');
    const cfg = parseKeepalivedConfig(text);
    if ('errors' in cfg) throw new Error(cfg.errors.join('\n'));
    // `fall 3` after `interval 3` is not read (keepalived 2.0's parser takes one keyword per line)
    expect(cfg.scripts).toEqual([{ name: 'chk_haproxy', script: 'killall -0 haproxy', intervalMs: 3000, fall: 1, rise: 1, weight: 0 }]);
    expect(cfg.instances).toEqual([{ name: 'VRRP1', state: 'MASTER', interface: 'ens3', virtualRouterId: 51, priority: 102, advertIntMs: 1000, vips: ['127.31.0.100'], trackScripts: ['chk_haproxy'] }]);
    expect(cfg.warnings).toContain("line 3: 'fall 3' after 'interval 3' ignored");
    expect(scriptTarget('killall -0 haproxy')).toBe('haproxy');
    expect(scriptTarget('/usr/bin/pidof haproxy')).toBe('haproxy');
    expect(scriptTarget('/etc/keepalived/check.sh')).toBeUndefined();
    expect(parseKeepalivedConfig(text.replace(/}\n$/, ''))).toEqual({ errors: [expect.stringContaining("unexpected end of file: 1 '{' not closed")] });
    expect(parseKeepalivedConfig(text.replace('virtual_router_id 51', 'virtual_router_id 300'))).toEqual({ errors: ['(VRRP1) the virtual router id must be set and between 1 & 255'] });
  });

  it("bounds what a tenant's config may ask of the shared simulator: listeners, servers, check and advert intervals, instances", () => {
    const many = `frontend f\n    mode tcp\n${Array.from({ length: 33 }, (_, i) => `    bind *:${20000 + i}`).join('\n')}\n    default_backend b\nbackend b\n    mode tcp\n    server s 127.0.0.1:1 check inter 1\n`;
    expect(parseHaproxyConfig(many)).toEqual({ errors: [expect.stringContaining("33 'bind' lines: the simulated haproxy allows 32 per host")] });
    const fast = parseHaproxyConfig(many.replace(/    bind \*:200(0[1-9]|[1-3]\d)\n/g, ''));
    expect('proxies' in fast && fast.proxies.find((p) => p.name === 'b')!.servers[0].interMs).toBe(100);
    const servers = `frontend f\n    mode tcp\n    bind *:20000\n    default_backend b\nbackend b\n    mode tcp\n${Array.from({ length: 65 }, (_, i) => `    server s${i} 127.0.0.1:${i + 1}`).join('\n')}\n`;
    expect(parseHaproxyConfig(servers)).toEqual({ errors: [expect.stringContaining('65 servers: the simulated haproxy allows 64 per backend')] });
    const instance = (i: number, advert = '1') => `vrrp_instance V${i} {\n    virtual_router_id ${i + 1}\n    advert_int ${advert}\n    virtual_ipaddress {\n        127.31.9.${i}\n    }\n}\n`;
    expect(parseKeepalivedConfig(Array.from({ length: 17 }, (_, i) => instance(i)).join(''))).toEqual({ errors: ['17 vrrp_instances: the simulated keepalived allows 16 per host'] });
    const quick = parseKeepalivedConfig(instance(1, '0.01'));
    expect('instances' in quick && quick.instances[0].advertIntMs).toBe(100);
  });
});
