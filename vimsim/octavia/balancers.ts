/**
 * The data path of Octavia's load balancers: one TcpProxy (lb/tcp-proxy.ts)
 * per listener on VIP:protocol_port, its backends the default pool's enabled
 * members (weight 0 = drained), health-checked as the pool's monitor says.
 * Every algorithm is the proxy's round robin and every monitor type a TCP
 * connect. Held in memory only: the provider PUTs each load balancer again
 * from Octavia's database when the simulator no longer shows its revision.
 */
import type { Logger } from 'pino';
import { badRequest } from '../http/errors';
import { TcpProxy, type ProxyBackend } from '../lb/tcp-proxy';
import type { Store } from '../store/store';
import { checkMember, deleteVipPort, VIP_OWNER } from './containment';
import { LIMITS, type ListenerSpec, type LoadBalancerSpec, type PoolSpec } from './schema';

interface RunningListener {
  proxy: TcpProxy;
  /** Same key: only the backends changed, the proxy (and its members' health) stays. */
  key: string;
  error?: string;
}

interface RunningLb {
  spec: LoadBalancerSpec;
  listeners: Map<string, RunningListener>;
}

export type MemberHealth = 'UP' | 'DOWN' | 'NO_CHECK' | 'UNUSED';

export interface LbView {
  id: string;
  revision: string;
  project_id: string;
  vip: string;
  listeners: { id: string; listening: boolean; error?: string }[];
  members: { id: string; pool_id: string; health: MemberHealth }[];
}

const served = (lb: LoadBalancerSpec, l: ListenerSpec) => lb.admin_state_up && l.admin_state_up;
const monitored = (pool: PoolSpec | undefined) => Boolean(pool?.healthmonitor?.admin_state_up);

function proxySettings(l: ListenerSpec, pool: PoolSpec | undefined) {
  const hm = monitored(pool) ? pool!.healthmonitor! : undefined;
  return {
    interMs: hm ? hm.delay * 1000 : undefined,
    rise: hm?.max_retries,
    fall: hm?.max_retries_down,
    connectTimeoutMs: hm ? hm.timeout * 1000 : l.timeout_member_connect || 5000,
    clientTimeoutMs: l.timeout_client_data || undefined,
    serverTimeoutMs: l.timeout_member_data || undefined,
  };
}

function backends(pool: PoolSpec | undefined): ProxyBackend[] {
  if (!pool?.admin_state_up) return [];
  const check = monitored(pool);
  return pool.members.filter((m) => m.admin_state_up && m.weight > 0).map((m) => ({ name: m.id, host: m.address, port: m.protocol_port, check }));
}

export class Balancers {
  private readonly lbs = new Map<string, RunningLb>();
  /** One change at a time per load balancer: a PUT and a DELETE never interleave their binds. */
  private readonly queue = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
  ) {}

  private serial<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.queue.get(id) ?? Promise.resolve()).then(fn, fn);
    this.queue.set(id, run.catch(() => undefined));
    return run;
  }

  /** Refuses (400) a graph that leaves its project or its bounds; nothing changes then. */
  private validate(id: string, spec: LoadBalancerSpec): void {
    const vip = this.store.get('ports', spec.vip.port_id);
    if (!vip || vip.device_owner !== VIP_OWNER || vip.device_id !== `lb-${id}` || vip.project_id !== spec.project_id || !vip.fixed_ips.some((f) => f.ip_address === spec.vip.address)) {
      throw badRequest(`VIP ${spec.vip.address} (port ${spec.vip.port_id}) is not the VIP port of load balancer ${id} in project ${spec.project_id}`);
    }
    const others = [...this.lbs.entries()].filter(([other]) => other !== id);
    if (others.length >= LIMITS.loadBalancers) throw badRequest(`The simulator runs at most ${LIMITS.loadBalancers} load balancers`);
    if (others.filter(([, lb]) => lb.spec.project_id === spec.project_id).length >= LIMITS.loadBalancersPerProject) {
      throw badRequest(`At most ${LIMITS.loadBalancersPerProject} load balancers per project`);
    }
    const ports = new Set<number>();
    const pools = new Set(spec.pools.map((p) => p.id));
    for (const l of spec.listeners) {
      if (ports.has(l.protocol_port)) throw badRequest(`Two listeners on port ${l.protocol_port}`);
      ports.add(l.protocol_port);
      if (l.default_pool_id && !pools.has(l.default_pool_id)) throw badRequest(`Listener ${l.id}: no pool ${l.default_pool_id}`);
    }
    for (const p of spec.pools) for (const m of p.members) checkMember(this.store, spec.project_id, m.address, m.subnet_id);
  }

  apply(id: string, spec: LoadBalancerSpec): Promise<LbView> {
    this.validate(id, spec);
    return this.serial(id, async () => {
      const lb = this.lbs.get(id) ?? { spec, listeners: new Map<string, RunningListener>() };
      lb.spec = spec;
      this.lbs.set(id, lb);
      const wanted = new Map(spec.listeners.filter((l) => served(spec, l)).map((l) => [l.id, l]));
      for (const [lid, running] of lb.listeners) {
        if (wanted.has(lid)) continue;
        lb.listeners.delete(lid);
        await running.proxy.close();
      }
      for (const l of wanted.values()) {
        const pool = spec.pools.find((p) => p.id === l.default_pool_id);
        const settings = proxySettings(l, pool);
        const key = JSON.stringify({ vip: spec.vip.address, port: l.protocol_port, settings });
        const running = lb.listeners.get(l.id);
        if (running && running.key === key && !running.error) {
          running.proxy.setBackends(backends(pool));
          continue;
        }
        await running?.proxy.close();
        const proxy = new TcpProxy({
          name: `octavia-${l.id}`, backends: backends(pool), ...settings,
          onBackendState: (b, reason) => this.log.info({ lb: id, listener: l.id, member: b.name, up: b.up, reason }, 'octavia member state'),
        });
        const next: RunningListener = { proxy, key };
        lb.listeners.set(l.id, next);
        try {
          await proxy.listen(spec.vip.address, l.protocol_port);
        } catch (e) {
          next.error = `cannot listen on ${spec.vip.address}:${l.protocol_port}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
          await proxy.close();
          this.log.warn({ lb: id, listener: l.id, error: next.error }, 'octavia listener not served');
        }
      }
      return this.view(id, lb);
    });
  }

  /** Stops the proxies and deletes the VIP port (which the provider names: a load balancer never PUT has one too). */
  remove(id: string, vipPortId: string | undefined): Promise<void> {
    return this.serial(id, async () => {
      const lb = this.lbs.get(id);
      this.lbs.delete(id);
      if (lb) for (const l of lb.listeners.values()) await l.proxy.close();
      const portId = vipPortId ?? lb?.spec.vip.port_id;
      if (portId) deleteVipPort(this.store, id, portId);
    });
  }

  get(id: string): LbView | undefined {
    const lb = this.lbs.get(id);
    return lb && this.view(id, lb);
  }

  list(): LbView[] {
    return [...this.lbs.entries()].map(([id, lb]) => this.view(id, lb));
  }

  async close(): Promise<void> {
    const all = [...this.lbs.values()];
    this.lbs.clear();
    await Promise.all(all.flatMap((lb) => [...lb.listeners.values()].map((l) => l.proxy.close())));
  }

  private view(id: string, lb: RunningLb): LbView {
    const { spec } = lb;
    const health = new Map<string, MemberHealth>();
    for (const l of spec.listeners) {
      const running = lb.listeners.get(l.id);
      if (!running || running.error) continue;
      for (const b of running.proxy.backends()) {
        if (health.get(b.name) !== 'UP') health.set(b.name, !b.check ? 'NO_CHECK' : b.up ? 'UP' : 'DOWN');
      }
    }
    return {
      id,
      revision: spec.revision,
      project_id: spec.project_id,
      vip: spec.vip.address,
      listeners: spec.listeners.map((l) => {
        const r = lb.listeners.get(l.id);
        return { id: l.id, listening: Boolean(r && !r.error), ...(r?.error ? { error: r.error } : {}) };
      }),
      members: spec.pools.flatMap((p) => p.members.map((m) => ({ id: m.id, pool_id: p.id, health: health.get(m.id) ?? 'UNUSED' }))),
    };
  }
}
