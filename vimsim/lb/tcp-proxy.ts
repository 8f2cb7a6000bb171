/**
 * A real TCP load balancer (node:net), as haproxy runs a `mode tcp` proxy:
 * any number of listening (address, port) pairs, added and removed at run
 * time, in front of a set of backends picked round robin among the healthy
 * ones. Knows nothing of simulated hosts, so the Octavia side can reuse it.
 *
 * Health (haproxy's `check`): a TCP connect every `inter` ms (default 2000);
 * haproxy's counter: health runs 0..rise+fall-1, a backend is UP while
 * health >= rise; a failure in the UP range takes one off (falling below rise
 * drops to 0: DOWN), a success in the DOWN range adds one (reaching rise jumps
 * to the top: UP). A backend starts as haproxy's do: UP with health = rise
 * ("up, but will fall down at first failure"), so it serves at once and the
 * first failed check takes it out. First checks are spread over `inter` as
 * haproxy spreads them (backend i of n at inter*i/n). A backend without
 * `check` is always UP.
 *
 * A failed connect to a backend is tried again on another UP backend
 * (`retries` times, default 1: haproxy's `retries` + `option redispatch`).
 */
import net from 'node:net';

export interface ProxyBackend {
  name: string;
  host: string;
  /** Omitted: the port the client connected to (haproxy's port-less `server` address). */
  port?: number;
  /** Health-check it (haproxy's `check`); default true. */
  check?: boolean;
  /** Per-backend overrides of the proxy's health settings (haproxy's `inter`, `fall`, `rise` on a server line). */
  interMs?: number;
  fall?: number;
  rise?: number;
}

export interface TcpProxyOptions {
  /** For log lines and views. */
  name?: string;
  backends: ProxyBackend[];
  /** Health-check defaults: haproxy's inter 2000 ms, fall 3, rise 2. */
  interMs?: number;
  fall?: number;
  rise?: number;
  /** Connect timeout towards a backend (haproxy `timeout connect`); also bounds a check. Default 5000. */
  connectTimeoutMs?: number;
  /** Idle timeouts (haproxy `timeout client` / `timeout server`); none by default. */
  clientTimeoutMs?: number;
  serverTimeoutMs?: number;
  /** How many other backends a failed connect is tried on (default 1). */
  retries?: number;
  /** A backend went UP or DOWN (haproxy logs "Server x/y is DOWN ..."). */
  onBackendState?(backend: BackendStatus, reason: string): void;
}

export interface BackendStatus {
  name: string;
  host: string;
  port: number | null;
  check: boolean;
  up: boolean;
  health: number;
  lastCheck: { ok: boolean; at: string; error?: string } | null;
  connections: number;
  total: number;
}

interface Backend {
  spec: ProxyBackend;
  interMs: number;
  fall: number;
  rise: number;
  health: number;
  lastCheck: BackendStatus['lastCheck'];
  timer?: NodeJS.Timeout;
  probe?: net.Socket;
  connections: number;
  total: number;
  removed: boolean;
}

interface Listener {
  host: string;
  port: number;
  server: net.Server;
  clients: Set<net.Socket>;
  closed: boolean;
}

const key = (host: string, port: number) => `${host}:${port}`;

export class TcpProxy {
  readonly name: string;
  private backendList: Backend[] = [];
  private readonly listeners = new Map<string, Listener>();
  private readonly sockets = new Set<net.Socket>();
  private rr = 0;
  private closed = false;

  constructor(private readonly opts: TcpProxyOptions) {
    this.name = opts.name ?? 'proxy';
    this.setBackends(opts.backends);
  }

  /** Replaces the backend set; backends already there (same host:port) keep their health. */
  setBackends(specs: ProxyBackend[]): void {
    const old = new Map(this.backendList.map((b) => [`${b.spec.host}:${b.spec.port}`, b]));
    const next: Backend[] = [];
    for (const spec of specs) {
      const kept = old.get(`${spec.host}:${spec.port}`);
      if (kept) {
        old.delete(`${spec.host}:${spec.port}`);
        kept.spec = spec;
        next.push(kept);
        continue;
      }
      const rise = spec.rise ?? this.opts.rise ?? 2;
      next.push({
        spec,
        interMs: spec.interMs ?? this.opts.interMs ?? 2000,
        fall: spec.fall ?? this.opts.fall ?? 3,
        rise,
        health: rise,
        lastCheck: null,
        connections: 0,
        total: 0,
        removed: false,
      });
    }
    for (const gone of old.values()) this.stopChecks(gone);
    this.backendList = next;
    if (this.closed) return;
    next.forEach((b, i) => {
      if (b.timer || b.probe || !this.checked(b)) return;
      this.schedule(b, Math.floor((b.interMs * i) / next.length));
    });
  }

  /** Starts listening on host:port; rejects with the bind error (EADDRINUSE, EADDRNOTAVAIL). Already listening: resolves. */
  listen(host: string, port: number): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`${this.name} is closed`));
    if (this.listeners.has(key(host, port))) return Promise.resolve();
    const server = net.createServer({ allowHalfOpen: true, pauseOnConnect: true });
    const listener: Listener = { host, port, server, clients: new Set(), closed: false };
    this.listeners.set(key(host, port), listener);
    server.on('connection', (client) => this.accept(listener, client));
    return new Promise((resolve, reject) => {
      let bound = false;
      server.on('error', (err) => {
        // after the bind, an accept error (EMFILE, ...) only costs that connection
        if (bound) return;
        if (this.listeners.get(key(host, port)) === listener) this.listeners.delete(key(host, port));
        listener.closed = true;
        reject(err);
      });
      server.listen(port, host, () => {
        bound = true;
        // removed (or the proxy closed) while the bind was under way: let go of the port at once
        if (listener.closed) server.close();
        resolve();
      });
    });
  }

  /** Stops listening on host:port and drops the connections it accepted (the address is gone, as a VIP moving away). */
  unlisten(host: string, port: number): Promise<void> {
    const listener = this.listeners.get(key(host, port));
    if (!listener) return Promise.resolve();
    this.listeners.delete(key(host, port));
    return this.closeListener(listener);
  }

  /** Where it listens (bound or binding). */
  listening(): { host: string; port: number }[] {
    return [...this.listeners.values()].map(({ host, port }) => ({ host, port }));
  }

  backends(): BackendStatus[] {
    return this.backendList.map((b) => this.status(b));
  }

  /** Closes every listener, connection and check; resolves once the listening sockets are closed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const b of this.backendList) this.stopChecks(b);
    const listeners = [...this.listeners.values()];
    this.listeners.clear();
    const closing = listeners.map((l) => this.closeListener(l));
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    await Promise.all(closing);
  }

  private closeListener(listener: Listener): Promise<void> {
    listener.closed = true;
    for (const c of listener.clients) c.destroy();
    return new Promise((resolve) => {
      if (!listener.server.listening) return resolve();
      listener.server.close(() => resolve());
    });
  }

  private checked(b: Backend): boolean {
    return b.spec.check !== false && b.spec.port !== undefined;
  }

  private up(b: Backend): boolean {
    return !this.checked(b) || b.health >= b.rise;
  }

  private status(b: Backend): BackendStatus {
    return {
      name: b.spec.name,
      host: b.spec.host,
      port: b.spec.port ?? null,
      check: this.checked(b),
      up: this.up(b),
      health: b.health,
      lastCheck: b.lastCheck,
      connections: b.connections,
      total: b.total,
    };
  }

  // ---- health checks ----

  private schedule(b: Backend, delayMs: number): void {
    b.timer = setTimeout(() => {
      b.timer = undefined;
      this.probe(b);
    }, delayMs);
    b.timer.unref();
  }

  private stopChecks(b: Backend): void {
    b.removed = true;
    clearTimeout(b.timer);
    b.timer = undefined;
    b.probe?.destroy();
    b.probe = undefined;
  }

  private probe(b: Backend): void {
    if (this.closed || b.removed) return;
    const started = Date.now();
    const socket = net.connect({ host: b.spec.host, port: b.spec.port! });
    b.probe = socket;
    const timeoutMs = Math.min(this.opts.connectTimeoutMs ?? 5000, b.interMs);
    let done = false;
    const finish = (ok: boolean, error?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      b.probe = undefined;
      if (this.closed || b.removed) return;
      this.record(b, ok, error);
      this.schedule(b, Math.max(0, b.interMs - (Date.now() - started)));
    };
    const timer = setTimeout(() => finish(false, 'Layer4 timeout'), timeoutMs);
    socket.once('connect', () => finish(true));
    socket.once('error', (err: NodeJS.ErrnoException) => finish(false, err.code === 'ECONNREFUSED' ? 'Connection refused' : err.message));
  }

  /** haproxy's check counter (check.c, check_notify_success/failure). */
  private record(b: Backend, ok: boolean, error?: string): void {
    const wasUp = this.up(b);
    b.lastCheck = { ok, at: new Date().toISOString(), ...(error ? { error } : {}) };
    if (ok) {
      if (b.health < b.rise + b.fall - 1) {
        b.health++;
        if (b.health >= b.rise) b.health = b.rise + b.fall - 1;
      }
    } else if (b.health > 0) {
      b.health--;
      if (b.health < b.rise) b.health = 0;
    }
    const isUp = this.up(b);
    if (isUp !== wasUp) this.opts.onBackendState?.(this.status(b), isUp ? 'Layer4 check passed' : `Layer4 connection problem, info: "${error ?? 'failed'}"`);
  }

  // ---- traffic ----

  /** The next UP backend after the last one used, skipping those already tried for this connection. */
  private pick(exclude: Set<Backend>): Backend | undefined {
    const n = this.backendList.length;
    for (let i = 0; i < n; i++) {
      const b = this.backendList[(this.rr + i) % n];
      if (this.up(b) && !exclude.has(b)) {
        this.rr = (this.rr + i + 1) % n;
        return b;
      }
    }
    return undefined;
  }

  private track(socket: net.Socket, listener?: Listener): void {
    this.sockets.add(socket);
    listener?.clients.add(socket);
    socket.once('close', () => {
      this.sockets.delete(socket);
      listener?.clients.delete(socket);
    });
    // errors end the pair through 'close'; an unhandled one would crash the simulator
    socket.on('error', () => undefined);
  }

  private accept(listener: Listener, client: net.Socket): void {
    if (this.closed || listener.closed) {
      client.destroy();
      return;
    }
    this.track(client, listener);
    if (this.opts.clientTimeoutMs) client.setTimeout(this.opts.clientTimeoutMs, () => client.destroy());
    this.connect(client, new Set(), this.opts.retries ?? 1);
  }

  private connect(client: net.Socket, tried: Set<Backend>, retriesLeft: number): void {
    if (client.destroyed) return;
    const b = this.pick(tried);
    // no server available: haproxy closes a tcp-mode connection
    if (!b) {
      client.destroy();
      return;
    }
    tried.add(b);
    const upstream = net.connect({ host: b.spec.host, port: b.spec.port ?? client.localPort!, allowHalfOpen: true });
    this.track(upstream);
    let connected = false;
    const abandon = () => upstream.destroy();
    client.once('close', abandon);
    const timer = setTimeout(() => upstream.destroy(new Error('connect timeout')), this.opts.connectTimeoutMs ?? 5000);
    upstream.once('connect', () => {
      connected = true;
      clearTimeout(timer);
      client.off('close', abandon);
      b.connections++;
      b.total++;
      upstream.once('close', () => b.connections--);
      this.splice(client, upstream);
    });
    upstream.once('close', () => {
      clearTimeout(timer);
      if (connected) return;
      client.off('close', abandon);
      // a refused or timed-out connect: redispatch to another backend, else give up on the client
      if (retriesLeft > 0) this.connect(client, tried, retriesLeft - 1);
      else client.destroy();
    });
  }

  /** Bytes both ways, half-closes forwarded; when one side is gone the other is closed once its data is out. */
  private splice(client: net.Socket, upstream: net.Socket): void {
    if (this.opts.serverTimeoutMs) upstream.setTimeout(this.opts.serverTimeoutMs, () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
    client.once('close', (hadError) => (hadError ? upstream.destroy() : upstream.destroySoon()));
    upstream.once('close', (hadError) => (hadError ? client.destroy() : client.destroySoon()));
  }
}
