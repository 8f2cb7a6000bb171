/**
 * The haproxy daemon of one simulated host: one TcpProxy per backend (so its
 * servers are health-checked once, however many frontends use it), listening
 * where the frontends bind. `bind *:PORT` means the host's own address and
 * every VIP it holds now (real haproxy binds 0.0.0.0 and sees VIPs come and
 * go; here each address is a socket of its own, added and removed as
 * keepalived moves the VIPs). `bind ADDR:PORT` binds when ADDR is the host's
 * or a held VIP; any other address fails the start ("cannot bind socket"), as
 * the kernel refuses it, unless net.ipv4.ip_nonlocal_bind=1, when it binds
 * once the VIP arrives. Tacker's `listen stats` page is not served, nor is a
 * bind on 127.0.0.1 (shared by every simulated host: accepted, not bound).
 *
 * Retries: haproxy without `option redispatch` retries a failed connect on
 * the same server; here that is no retry at all, and with the option, one on
 * another UP server.
 */
import type { Logger } from 'pino';
import { alertPrefix, isStatsPage, type HaproxyConfig, type HaproxyProxy } from './haproxy-config';
import { TcpProxy, type BackendStatus } from './tcp-proxy';

/** What haproxy needs from its host. */
export interface HaproxyHost {
  serverId: string;
  address: string;
  /** The host's address and the VIPs it holds now. */
  localAddresses(): string[];
  nonlocalBind(): boolean;
}

interface Wanted {
  address: string;
  port: number;
  frontend: string;
  proxy: TcpProxy;
}

const RETRY_BIND_MS = 500;
/** 127.0.0.1 is every simulated host's and the simulator's own: a bind there is accepted and not made. */
const LOOPBACK = '127.0.0.1';

export class HaproxyService {
  private readonly proxies = new Map<string, TcpProxy>();
  /** Frontend name → the proxy its connections go to. */
  private readonly routes = new Map<string, TcpProxy>();
  /** addr:port → what listens there. */
  private readonly bound = new Map<string, Wanted>();
  private retry?: NodeJS.Timeout;
  private stopped = false;
  readonly startedAt = new Date().toISOString();
  lastError?: string;

  constructor(
    private readonly host: HaproxyHost,
    readonly config: HaproxyConfig,
    private readonly log: Logger,
  ) {
    for (const w of config.warnings) this.log.info({ host: host.address }, `${alertPrefix('WARNING')}${w}`);
    const byName = new Map(config.proxies.map((p) => [p.name, p]));
    for (const fe of this.frontends()) {
      const be = fe.servers.length > 0 || !fe.defaultBackend ? fe : byName.get(fe.defaultBackend)!;
      let proxy = this.proxies.get(be.name);
      if (!proxy) {
        proxy = this.makeProxy(be, fe);
        this.proxies.set(be.name, proxy);
      }
      this.routes.set(fe.name, proxy);
    }
  }

  private frontends(): HaproxyProxy[] {
    return this.config.proxies.filter((p) => p.kind !== 'backend' && !isStatsPage(p));
  }

  private makeProxy(be: HaproxyProxy, fe: HaproxyProxy): TcpProxy {
    return new TcpProxy({
      name: be.name,
      backends: be.servers.filter((s) => !s.disabled).map((s) => ({ name: s.name, host: s.host, port: s.port, check: s.check, interMs: s.interMs, fall: s.fall, rise: s.rise })),
      connectTimeoutMs: be.timeouts.connect ?? 5000,
      clientTimeoutMs: fe.timeouts.client,
      serverTimeoutMs: be.timeouts.server,
      retries: be.redispatch ? 1 : 0,
      onBackendState: (b: BackendStatus, reason: string) => {
        const left = this.proxies.get(be.name)?.backends().filter((x) => x.up).length ?? 0;
        this.log.warn({ host: this.host.address }, `Server ${be.name}/${b.name} is ${b.up ? 'UP' : 'DOWN'}, reason: ${reason}. ${left} active and 0 backup servers ${b.up ? 'online' : 'left'}.`);
      },
    });
  }

  /** Every (address, port) the frontends should listen on now; non-local addresses left out. */
  private wanted(): Map<string, Wanted> {
    const local = this.host.localAddresses();
    const out = new Map<string, Wanted>();
    for (const fe of this.frontends()) {
      const proxy = this.routes.get(fe.name)!;
      for (const b of fe.binds) {
        const addresses = b.address === '*' ? local : local.includes(b.address) ? [b.address] : [];
        for (const address of addresses) {
          const k = `${address}:${b.port}`;
          // two frontends on one socket: the first keeps it
          if (!out.has(k)) out.set(k, { address, port: b.port, frontend: fe.name, proxy });
        }
      }
    }
    return out;
  }

  /** Binds every frontend; the first socket that cannot be bound fails the start (haproxy exits). */
  async start(): Promise<string | undefined> {
    if (!this.host.nonlocalBind()) {
      const local = this.host.localAddresses();
      for (const fe of this.frontends()) {
        const foreign = fe.binds.find((b) => b.address !== '*' && b.address !== LOOPBACK && !local.includes(b.address));
        if (foreign) return this.fail(fe.name, foreign.address, foreign.port, 'Cannot assign requested address');
      }
    }
    // marked bound before the binds end, so a VIP moving meanwhile (sync) sees them
    const wanted = [...this.wanted()];
    for (const [k, w] of wanted) this.bound.set(k, w);
    const results = await Promise.allSettled(wanted.map(([, w]) => w.proxy.listen(w.address, w.port)));
    const failed = results.findIndex((r) => r.status === 'rejected');
    if (failed < 0 || this.stopped) return undefined;
    const [, w] = wanted[failed];
    return this.fail(w.frontend, w.address, w.port, ((results[failed] as PromiseRejectedResult).reason as Error).message);
  }

  private async fail(frontend: string, address: string, port: number, why: string): Promise<string> {
    this.lastError = `${alertPrefix()}Starting frontend ${frontend}: cannot bind socket [${address}:${port}]`;
    this.log.warn({ host: this.host.address, why }, this.lastError);
    await this.stop();
    return this.lastError;
  }

  /** The host's addresses changed (a VIP came or went): listen where wanted, stop where not. */
  sync(): void {
    if (this.stopped) return;
    const wanted = this.wanted();
    for (const [k, w] of [...this.bound]) {
      if (wanted.has(k)) continue;
      this.bound.delete(k);
      void w.proxy.unlisten(w.address, w.port);
    }
    for (const [k, w] of wanted) {
      if (this.bound.has(k)) continue;
      this.bound.set(k, w);
      w.proxy.listen(w.address, w.port).catch((err: Error) => {
        if (this.bound.get(k) !== w) return;
        // the previous holder may still be letting go of the address: try again shortly
        this.bound.delete(k);
        this.lastError = `${alertPrefix()}Starting frontend ${w.frontend}: cannot bind socket [${k}] (${err.message})`;
        this.log.warn({ host: this.host.address }, this.lastError);
        this.retryLater();
      });
    }
  }

  private retryLater(): void {
    if (this.retry || this.stopped) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.sync();
    }, RETRY_BIND_MS);
    this.retry.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    this.bound.clear();
    await Promise.all([...this.proxies.values()].map((p) => p.close()));
  }

  view() {
    return {
      startedAt: this.startedAt,
      lastError: this.lastError ?? null,
      listening: [...this.bound.values()].map((w) => ({ address: w.address, port: w.port, frontend: w.frontend, backend: w.proxy.name })),
      backends: Object.fromEntries([...this.proxies].map(([name, p]) => [name, p.backends()])),
    };
  }
}
