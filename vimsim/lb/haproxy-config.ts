/**
 * /etc/haproxy/haproxy.cfg as haproxy 2.0 reads it, for what a tcp-mode load
 * balancer needs (Tacker's install_k8s_cluster.sh writes: global, defaults,
 * `frontend kubernetes-apiserver` mode tcp bind *:16443, `backend
 * kubernetes-apiserver` balance roundrobin with `server masterN ip:6443 check`,
 * and `listen stats`). `global` is read for nothing; `defaults` for mode,
 * timeouts, retries and default-server. Keywords of frontend/backend/listen
 * sections haproxy knows are accepted (most change nothing here); an unknown
 * one is haproxy's "unknown keyword" alert. Errors come out as haproxy's
 * `[ALERT]` lines, and the caller fails the unit's start with them.
 */

export const HAPROXY_CFG = '/etc/haproxy/haproxy.cfg';

export interface HaproxyBind {
  /** '*' = every address of the host (and the VIPs it holds). */
  address: string;
  port: number;
  line: number;
}

export interface HaproxyServer {
  name: string;
  host: string;
  port?: number;
  check: boolean;
  interMs?: number;
  fall?: number;
  rise?: number;
  disabled: boolean;
}

export interface HaproxyProxy {
  kind: 'frontend' | 'backend' | 'listen';
  name: string;
  line: number;
  mode: 'tcp' | 'http' | 'health';
  binds: HaproxyBind[];
  defaultBackend?: string;
  balance: string;
  servers: HaproxyServer[];
  /** `stats ...` lines: a listen section that only serves the statistics page. */
  stats: boolean;
  timeouts: { connect?: number; client?: number; server?: number; check?: number };
  retries: number;
  redispatch: boolean;
  defaultServer: { interMs?: number; fall?: number; rise?: number };
}

export interface HaproxyConfig {
  proxies: HaproxyProxy[];
  warnings: string[];
}

/** Keywords haproxy 2.0 accepts in proxy sections that change nothing for a tcp proxy here. */
const ACCEPTED = new Set([
  'log', 'option', 'no', 'maxconn', 'fullconn', 'errorfile', 'errorloc', 'errorloc302', 'errorloc303', 'description', 'id', 'enabled',
  'disabled', 'acl', 'tcp-request', 'tcp-response', 'http-request', 'http-response', 'http-after-response', 'capture', 'monitor-uri',
  'monitor', 'hash-type', 'hash-balance-factor', 'cookie', 'persist', 'stick', 'stick-table', 'http-check', 'tcp-check', 'external-check',
  'compression', 'redirect', 'rate-limit', 'bind-process', 'unique-id-format', 'unique-id-header', 'log-format', 'log-tag', 'log-format-sd',
  'email-alert', 'http-reuse', 'http-send-name-header', 'load-server-state-from-file', 'server-state-file-name', 'source', 'grace',
  'ignore-persist', 'force-persist', 'declare', 'filter', 'dispatch', 'transparent', 'server-template', 'use-server', 'default_backend',
  'use_backend', 'mode', 'bind', 'balance', 'server', 'default-server', 'timeout', 'retries', 'stats', 'contimeout', 'clitimeout', 'srvtimeout',
  'reqadd', 'rspadd', 'reqrep', 'rsprep', 'reqdel', 'rspdel', 'reqidel', 'rspidel', 'reqirep', 'rspirep', 'reqallow', 'reqdeny', 'reqtarpit',
  'reqpass', 'rspdeny', 'rspideny', 'max-keep-alive-queue', 'backlog', 'retry-on', 'http-error',
]);

const SECTIONS = new Set(['global', 'defaults', 'frontend', 'backend', 'listen', 'userlist', 'peers', 'resolvers', 'mailers', 'program', 'cache', 'http-errors', 'ring']);

/** haproxy's time format: a number with us/ms/s/m/h/d, ms when bare. */
export function haproxyTime(text: string | undefined): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(us|ms|s|m|h|d)?$/.exec(text ?? '');
  if (!m) return undefined;
  const factor = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] ?? 'ms']!;
  return Math.round(Number(m[1]) * factor);
}

/** haproxy's "[ALERT] ddd/hhmmss (pid) : " prefix. */
export function alertPrefix(level: 'ALERT' | 'WARNING' = 'ALERT', at = new Date()): string {
  const start = Date.UTC(at.getUTCFullYear(), 0, 0);
  const day = String(Math.floor((at.getTime() - start) / 86_400_000)).padStart(3, '0');
  const hms = [at.getUTCHours(), at.getUTCMinutes(), at.getUTCSeconds()].map((n) => String(n).padStart(2, '0')).join('');
  return `[${level}] ${day}/${hms} (${process.pid}) : `;
}

/** Words of a line: quotes and backslash escapes as haproxy reads them, `#` starting a comment. */
function words(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | undefined;
  let has = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) cur += line[++i];
      else cur += c;
      continue;
    }
    if (c === '#') break;
    if (c === '\\' && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (c === ' ' || c === '\t') {
      if (has) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has) out.push(cur);
  return out;
}

/** `*:16443`, `:16443`, `0.0.0.0:16443`, `10.0.0.1:80,10.0.0.2:80`, `:8000-8002`, `:::16443`. */
function parseBindAddresses(spec: string, line: number): HaproxyBind[] | string {
  const out: HaproxyBind[] = [];
  for (const part of spec.split(',')) {
    const at = part.lastIndexOf(':');
    if (at < 0) return `missing port number: '${part}'`;
    let address = part.slice(0, at).replace(/^ipv4@/, '');
    const ports = part.slice(at + 1);
    if (address === '' || address === '*' || address === '0.0.0.0' || address === '::' || address === '[::]' || address === 'ipv6@') address = '*';
    else if (!/^\d+\.\d+\.\d+\.\d+$/.test(address) && address !== 'localhost') return `invalid address: '${address}' in '${part}'`;
    const range = /^(\d+)(?:-(\d+))?$/.exec(ports);
    if (!range) return `invalid port '${ports}'`;
    const lo = Number(range[1]);
    const hi = Number(range[2] ?? range[1]);
    if (lo < 1 || hi > 65535 || hi < lo) return `invalid port range '${ports}'`;
    for (let p = lo; p <= hi; p++) out.push({ address: address === 'localhost' ? '127.0.0.1' : address, port: p, line });
  }
  return out;
}

function emptyProxy(kind: HaproxyProxy['kind'], name: string, line: number, defaults: HaproxyProxy): HaproxyProxy {
  return {
    kind,
    name,
    line,
    mode: defaults.mode,
    binds: [],
    balance: defaults.balance,
    servers: [],
    stats: false,
    timeouts: { ...defaults.timeouts },
    retries: defaults.retries,
    redispatch: defaults.redispatch,
    defaultServer: { ...defaults.defaultServer },
    defaultBackend: kind === 'backend' ? undefined : defaults.defaultBackend,
  };
}

export function parseHaproxyConfig(text: string, file = HAPROXY_CFG): HaproxyConfig | { errors: string[] } {
  const errors: string[] = [];
  const warnings: string[] = [];
  // haproxy's own defaults: mode tcp, retries 3, no redispatch
  let defaults: HaproxyProxy = {
    kind: 'listen', name: 'defaults', line: 0, mode: 'tcp', binds: [], balance: 'roundrobin', servers: [], stats: false,
    timeouts: {}, retries: 3, redispatch: false, defaultServer: {},
  };
  const proxies: HaproxyProxy[] = [];
  let section: string | undefined;
  let current: HaproxyProxy | undefined;
  const at = (n: number) => `parsing [${file}:${n}] : `;

  text.split('\n').forEach((raw, i) => {
    const n = i + 1;
    const w = words(raw);
    if (w.length === 0) return;
    const [kw, ...args] = w;
    if (SECTIONS.has(kw)) {
      section = kw;
      current = undefined;
      if (kw === 'defaults') {
        defaults = emptyProxy('listen', 'defaults', n, defaults);
        current = defaults;
      } else if (kw === 'frontend' || kw === 'backend' || kw === 'listen') {
        if (!args[0]) {
          errors.push(`${at(n)}'${kw}' expects <name> as an argument.`);
          return;
        }
        if (proxies.some((p) => p.name === args[0] && (p.kind === kw || p.kind === 'listen' || kw === 'listen'))) {
          errors.push(`${at(n)}${kw} '${args[0]}' has the same name as another ${kw} declared at ${file}:${proxies.find((p) => p.name === args[0])!.line}.`);
        }
        current = emptyProxy(kw, args[0], n, defaults);
        proxies.push(current);
        if (args[1] && kw !== 'backend') {
          const binds = parseBindAddresses(args[1], n);
          if (typeof binds === 'string') errors.push(`${at(n)}'${kw} ${args[0]}' : ${binds}`);
          else current.binds.push(...binds);
        }
      }
      return;
    }
    if (section === undefined) {
      errors.push(`${at(n)}unknown keyword '${kw}' out of section.`);
      return;
    }
    // global and the other sections: nothing a tcp proxy here needs
    if (!current) return;
    const where = section === 'defaults' ? 'defaults' : `${current.kind} '${current.name}'`;
    if (!ACCEPTED.has(kw)) {
      errors.push(`${at(n)}unknown keyword '${kw}' in '${section}' section`);
      return;
    }
    switch (kw) {
      case 'mode':
        if (args[0] !== 'tcp' && args[0] !== 'http' && args[0] !== 'health') errors.push(`${at(n)}unknown proxy mode '${args[0] ?? ''}'.`);
        else current.mode = args[0];
        break;
      case 'bind': {
        if (section === 'defaults' || current.kind === 'backend') {
          errors.push(`${at(n)}'bind' not allowed in '${section}' section.`);
          break;
        }
        if (!args[0]) {
          errors.push(`${at(n)}'bind' : missing socket address.`);
          break;
        }
        if (args.slice(1).some((a) => a === 'ssl' || a === 'crt')) {
          errors.push(`${at(n)}'bind ${args[0]}' : ssl is not supported by the simulated haproxy (tcp mode passes TLS through).`);
          break;
        }
        const binds = parseBindAddresses(args[0], n);
        if (typeof binds === 'string') errors.push(`${at(n)}'bind ${args[0]}' : ${binds}`);
        else current.binds.push(...binds);
        break;
      }
      case 'default_backend':
        if (current.kind === 'backend') errors.push(`${at(n)}'default_backend' not allowed in 'backend' section.`);
        else current.defaultBackend = args[0];
        break;
      case 'use_backend':
        // only the unconditional form: ACLs are not evaluated here
        if (args.length === 1) current.defaultBackend ??= args[0];
        else errors.push(`${at(n)}'use_backend ${args.join(' ')}' : conditions are not supported by the simulated haproxy.`);
        break;
      case 'balance':
        // every algorithm is accepted; servers are picked round robin (equal weights)
        if (!args[0]) errors.push(`${at(n)}'balance' requires an algorithm.`);
        else current.balance = args[0];
        if (args[0] && args[0] !== 'roundrobin') warnings.push(`${at(n)}'balance ${args[0]}' is simulated as roundrobin.`);
        break;
      case 'timeout': {
        const ms = haproxyTime(args[1]);
        if (ms === undefined) {
          errors.push(`${at(n)}'timeout ${args[0] ?? ''}' : expects an integer value (in milliseconds) or a time with unit.`);
          break;
        }
        if (args[0] === 'connect' || args[0] === 'client' || args[0] === 'server' || args[0] === 'check') current.timeouts[args[0]] = ms;
        break;
      }
      case 'contimeout': case 'clitimeout': case 'srvtimeout': {
        const ms = haproxyTime(args[0]);
        const which = ({ contimeout: 'connect', clitimeout: 'client', srvtimeout: 'server' } as const)[kw];
        if (ms !== undefined) current.timeouts[which] = ms;
        break;
      }
      case 'retries':
        if (!/^\d+$/.test(args[0] ?? '')) errors.push(`${at(n)}'retries' expects an integer argument.`);
        else current.retries = Number(args[0]);
        break;
      case 'option':
        if (args[0] === 'redispatch') current.redispatch = true;
        break;
      case 'no':
        if (args[0] === 'option' && args[1] === 'redispatch') current.redispatch = false;
        break;
      case 'stats':
        current.stats = true;
        break;
      case 'default-server': {
        const opts = serverOptions(args, n, where, errors);
        Object.assign(current.defaultServer, opts);
        break;
      }
      case 'server': {
        if (section === 'defaults' || current.kind === 'frontend') {
          errors.push(`${at(n)}'server' not allowed in '${section}' section.`);
          break;
        }
        const [name, address, ...rest] = args;
        if (!name || !address) {
          errors.push(`${at(n)}'server' expects <name> and <addr>[:<port>] as arguments.`);
          break;
        }
        const m = /^(\d+\.\d+\.\d+\.\d+|localhost)(?::(\d+))?$/.exec(address);
        if (!m) {
          errors.push(`${at(n)}'server ${name}' : could not resolve address '${address}'.`);
          break;
        }
        const port = m[2] === undefined ? undefined : Number(m[2]);
        if (port !== undefined && (port < 1 || port > 65535)) {
          errors.push(`${at(n)}'server ${name}' : invalid port '${m[2]}'.`);
          break;
        }
        const opts = serverOptions(rest, n, `server ${name}`, errors);
        current.servers.push({
          name,
          host: m[1] === 'localhost' ? '127.0.0.1' : m[1],
          port,
          check: rest.includes('check'),
          interMs: opts.interMs ?? current.defaultServer.interMs,
          fall: opts.fall ?? current.defaultServer.fall,
          rise: opts.rise ?? current.defaultServer.rise,
          disabled: rest.includes('disabled'),
        });
        break;
      }
      default:
        break;
    }
  });

  for (const p of proxies) {
    if (p.kind === 'backend') continue;
    if (isStatsPage(p)) continue;
    if (p.mode !== 'tcp') errors.push(`Proxy '${p.name}': mode ${p.mode} is not supported by the simulated haproxy (tcp mode only).`);
    if (!p.defaultBackend) continue;
    const target = proxies.find((b) => b.name === p.defaultBackend && b.kind !== 'frontend');
    if (!target) errors.push(`Proxy '${p.name}': unable to find required default_backend: '${p.defaultBackend}'.`);
    else if (target.mode !== p.mode) errors.push(`Proxy '${p.name}': unable to use proxy '${target.name}' with wrong mode, required: ${p.mode}, has: ${target.mode}.`);
  }
  // a tenant's config runs in the simulator's own process: bounded, so no host can take the others' sockets or CPU
  const listeners = proxies.reduce((n, p) => n + p.binds.length, 0);
  if (listeners > LIMITS.listeners) errors.push(`${listeners} 'bind' lines: the simulated haproxy allows ${LIMITS.listeners} per host.`);
  for (const p of proxies) {
    if (p.servers.length > LIMITS.servers) errors.push(`Proxy '${p.name}': ${p.servers.length} servers: the simulated haproxy allows ${LIMITS.servers} per backend.`);
    for (const sv of p.servers) if (sv.interMs !== undefined) sv.interMs = Math.max(sv.interMs, LIMITS.minInterMs);
  }
  if (errors.length) return { errors };
  return { proxies, warnings };
}

/** What one host's haproxy may ask of the simulator: listening sockets, servers per backend, the shortest check interval. */
export const LIMITS = { listeners: 32, servers: 64, minInterMs: 100 };

/** Tacker's `listen stats` (a statistics page, no servers): not served here. */
export function isStatsPage(p: HaproxyProxy): boolean {
  return p.kind === 'listen' && p.stats && p.servers.length === 0;
}

function serverOptions(args: string[], n: number, where: string, errors: string[]): { interMs?: number; fall?: number; rise?: number } {
  const out: { interMs?: number; fall?: number; rise?: number } = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === 'inter') {
      const ms = haproxyTime(args[++i]);
      if (!ms) errors.push(`parsing [${HAPROXY_CFG}:${n}] : '${where}' : 'inter' expects a positive delay.`);
      else out.interMs = ms;
    } else if (a === 'fall' || a === 'rise') {
      const v = Number(args[++i]);
      if (!Number.isInteger(v) || v < 1) errors.push(`parsing [${HAPROXY_CFG}:${n}] : '${where}' : '${a}' has to be > 0.`);
      else out[a] = v;
    }
  }
  return out;
}

/** The alert lines of a config haproxy refuses (what `haproxy -c` prints), ending with its two summary lines. */
export function haproxyAlerts(errors: string[], file = HAPROXY_CFG): string[] {
  const prefix = alertPrefix();
  return [...errors.map((e) => prefix + e), `${prefix}Error(s) found in configuration file : ${file}`, `${prefix}Fatal errors found in configuration.`];
}
