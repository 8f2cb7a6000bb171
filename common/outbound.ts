/**
 * The outbound policy: every URL the product calls on a caller's behalf (a
 * VIM's Keystone auth_url, the service endpoints its catalog names, a
 * coordination endpoint, an OAuth 2.0 token endpoint, a 202 Location) goes
 * through here, so one set of rules decides where the worker may connect.
 *
 * - only http and https, no credentials in the URL;
 * - the destination (the URL's host name, and every address it resolves to)
 *   must pass the allow/deny lists: built-in denies (link-local, cloud
 *   metadata, multicast, "this network"), then the operator's
 *   OUTBOUND_DENY / OUTBOUND_ALLOW;
 * - host names are resolved by a `lookup` given to http(s).request
 *   (policyLookup), which checks every address and hands the checked ones to
 *   the socket: no DNS rebinding between the check and the connect;
 * - response bodies are capped (readCapped, maxBody) and remote error text
 *   is only ever shown as a short masked excerpt (excerpt).
 *
 * Settings (environment, parsed here, re-read when the values change):
 *   OUTBOUND_ALLOW   comma-separated CIDRs, IP addresses and host names
 *                    (`keystone.example.com`, `*.example.com` or
 *                    `.example.com` for any subdomain). Unset: every
 *                    destination not denied. Set: only those. An address
 *                    entry also lifts a built-in deny when it is at least as
 *                    narrow (169.254.10.0/24 opens that /24 of link-local;
 *                    0.0.0.0/0 opens nothing that is denied by default).
 *   OUTBOUND_DENY    same syntax; always refused, before anything else.
 *   OUTBOUND_MAX_BODY_KEYSTONE / _HEAT / _COORD   response caps: bytes, or
 *                    with a KiB/MiB/GiB (k/m/g) suffix; 8 MiB / 32 MiB / 1 MiB.
 *   COORD_CLIENT_CERT_HOSTS   hosts the operator's mTLS client certificate
 *                    (COORD_CLIENT_CERT) may be presented to: `host`,
 *                    `host:port`, `https://host[:port]`, `*.example.com`.
 *                    Unset: none.
 */
import dns from 'node:dns';
import net from 'node:net';
import type { IncomingMessage } from 'node:http';
import { MASK, redactString } from './secrets';
import { formatBytes, parseSize } from './sizes';

// ---- errors -----------------------------------------------------------------

/** A URL or destination the outbound policy refuses: nothing was sent. */
export class OutboundRefused extends Error {
  readonly code = 'EOUTBOUND';
  constructor(message: string) {
    super(message);
    this.name = 'OutboundRefused';
  }
}

/** A response larger than its cap: the connection was dropped there. */
export class ResponseTooLarge extends Error {
  readonly code = 'ERESPONSETOOLARGE';
  constructor(message: string, readonly limit: number) {
    super(message);
    this.name = 'ResponseTooLarge';
  }
}

/** A malformed outbound setting (names the variable and the entry). */
export class OutboundConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundConfigError';
  }
}

// ---- addresses --------------------------------------------------------------

interface Ip { v: 4 | 6; n: bigint }
interface Cidr extends Ip { bits: number; text: string; label?: string }
interface NameRule { name: string; sub: boolean; text: string }
export interface AccessList { cidrs: Cidr[]; names: NameRule[]; raw: string[] }

const V4_MAPPED = 0xffffn << 32n; // ::ffff:0:0/96
const NAT64 = 0x64ff9bn << 96n; // 64:ff9b::/96

function parseV4(s: string): bigint | undefined {
  if (!net.isIPv4(s)) return undefined;
  return s.split('.').reduce((a, p) => (a << 8n) | BigInt(Number(p)), 0n);
}

function parseV6(s: string): bigint | undefined {
  if (!net.isIPv6(s)) return undefined;
  const split = (part: string) => {
    if (!part) return [] as string[];
    const g = part.split(':');
    const last = g[g.length - 1];
    if (last.includes('.')) {
      const v4 = parseV4(last)!;
      g.splice(g.length - 1, 1, ((v4 >> 16n) & 0xffffn).toString(16), (v4 & 0xffffn).toString(16));
    }
    return g;
  };
  const at = s.indexOf('::');
  const head = split(at >= 0 ? s.slice(0, at) : s);
  const tail = at >= 0 ? split(s.slice(at + 2)) : [];
  const groups = at >= 0 ? [...head, ...Array(8 - head.length - tail.length).fill('0'), ...tail] : head;
  return groups.reduce((a, g) => (a << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** An address as the policy compares it: IPv4-mapped, NAT64 and IPv4-compatible IPv6 addresses count as their IPv4 address. */
export function parseIp(input: string): Ip | undefined {
  let s = input.trim().replace(/^\[(.*)\]$/, '$1');
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  const v4 = parseV4(s);
  if (v4 !== undefined) return { v: 4, n: v4 };
  const v6 = parseV6(s);
  if (v6 === undefined) return undefined;
  const low = v6 & 0xffffffffn;
  if ((v6 >> 32n) << 32n === V4_MAPPED || (v6 >> 32n) << 32n === NAT64 || (v6 >> 32n === 0n && low > 1n)) return { v: 4, n: low };
  return { v: 6, n: v6 };
}

function showIp(ip: Ip): string {
  if (ip.v === 4) return [24n, 16n, 8n, 0n].map((s) => String((ip.n >> s) & 0xffn)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((ip.n >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

function parseCidr(text: string): Cidr | undefined {
  const [addr, bitsText, ...rest] = text.split('/');
  if (rest.length) return undefined;
  const s = addr.replace(/^\[(.*)\]$/, '$1');
  const v4 = parseV4(s);
  const v6 = v4 === undefined ? parseV6(s) : undefined;
  if (v4 === undefined && v6 === undefined) return undefined;
  const v: 4 | 6 = v4 !== undefined ? 4 : 6;
  const width = v === 4 ? 32 : 128;
  const bits = bitsText === undefined ? width : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : NaN;
  if (!(bits >= 0 && bits <= width)) return undefined;
  const n = (v4 ?? v6)!;
  const shift = BigInt(width - bits);
  return { v, n: (n >> shift) << shift, bits, text };
}

function inCidr(ip: Ip, c: Cidr): boolean {
  if (ip.v !== c.v) return false;
  const shift = BigInt((ip.v === 4 ? 32 : 128) - c.bits);
  return ip.n >> shift === c.n >> shift;
}

/** The most specific entry of `list` containing `ip`. */
function narrowest(ip: Ip, list: Cidr[]): Cidr | undefined {
  let best: Cidr | undefined;
  for (const c of list) if (inCidr(ip, c) && (!best || c.bits > best.bits)) best = c;
  return best;
}

const normName = (h: string) => h.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');

function nameMatches(host: string, rules: NameRule[]): NameRule | undefined {
  const h = normName(host);
  return rules.find((r) => (r.sub ? h.endsWith(`.${r.name}`) : h === r.name));
}

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** A comma-separated list of CIDRs, addresses and host names (OUTBOUND_ALLOW / OUTBOUND_DENY syntax). */
export function parseAccessList(value: string | undefined, variable: string): AccessList {
  const list: AccessList = { cidrs: [], names: [], raw: [] };
  for (const entry of (value ?? '').split(',').map((e) => e.trim()).filter(Boolean)) {
    list.raw.push(entry);
    const cidr = parseCidr(entry);
    if (cidr) { list.cidrs.push(cidr); continue; }
    const m = /^(\*\.|\.)?(.+)$/.exec(entry.toLowerCase())!;
    const name = m[2].replace(/\.$/, '');
    if (!entry.includes('/') && HOST_NAME.test(name)) { list.names.push({ name, sub: !!m[1], text: entry }); continue; }
    throw new OutboundConfigError(`${variable}: "${entry.slice(0, 80)}" is not a CIDR, an IP address or a host name (comma-separated, e.g. 10.0.0.0/8,keystone.example.com,*.example.com)`);
  }
  return list;
}

/** Always refused unless OUTBOUND_ALLOW names an address range at least as narrow. */
const BUILTIN_DENY: Cidr[] = ([
  ['169.254.0.0/16', 'link-local, where clouds serve instance metadata (169.254.169.254, 169.254.170.2)'],
  ['fe80::/10', 'IPv6 link-local'],
  ['fd00:ec2::254/128', 'the AWS IPv6 instance metadata address'],
  ['100.100.100.200/32', 'the Alibaba Cloud metadata address'],
  ['192.0.0.192/32', 'the Oracle Cloud metadata address'],
  ['0.0.0.0/8', '"this network" (0.0.0.0 reaches the local host by a back door)'],
  ['::/128', 'the unspecified IPv6 address'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['ff00::/8', 'IPv6 multicast'],
] as const).map(([text, label]) => ({ ...parseCidr(text)!, label }));

const BUILTIN_DENY_NAMES: NameRule[] = [
  'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal', 'metadata.tencentyun.com',
  'metadata.azure.internal',
].map((name) => ({ name, sub: false, text: name }));

// ---- settings ---------------------------------------------------------------

export interface OutboundSettings {
  allow: AccessList;
  deny: AccessList;
  maxBody: { keystone: number; heat: number; coord: number };
  /** COORD_CLIENT_CERT_HOSTS entries (validated). */
  clientCertHosts: string[];
}

const MiB = 1024 * 1024;
export const DEFAULT_MAX_BODY = { keystone: 8 * MiB, heat: 32 * MiB, coord: 1 * MiB } as const;
export const MAX_BODY_SETTING = { keystone: 'OUTBOUND_MAX_BODY_KEYSTONE', heat: 'OUTBOUND_MAX_BODY_HEAT', coord: 'OUTBOUND_MAX_BODY_COORD' } as const;
const VARIABLES = ['OUTBOUND_ALLOW', 'OUTBOUND_DENY', ...Object.values(MAX_BODY_SETTING), 'COORD_CLIENT_CERT_HOSTS'] as const;

function sizeSetting(value: string | undefined, variable: string, dflt: number): number {
  try {
    return parseSize(value, variable, dflt);
  } catch (e) {
    throw new OutboundConfigError((e as Error).message);
  }
}

/** One COORD_CLIENT_CERT_HOSTS entry: `host`, `host:port`, `[v6]:port`, `scheme://host[:port]`, `*.domain`. */
interface HostPattern { scheme?: string; host: string; sub: boolean; port?: string }

function parseHostPattern(entry: string): HostPattern | undefined {
  let rest = entry.trim().toLowerCase();
  let scheme: string | undefined;
  const sm = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/.exec(rest);
  if (sm) {
    scheme = sm[1];
    rest = sm[2].replace(/\/+$/, '');
    if (scheme !== 'https' && scheme !== 'http') return undefined;
  }
  if (!rest || /[/?#@\s]/.test(rest)) return undefined;
  let host = rest;
  let port: string | undefined;
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(rest);
  if (v6) { host = v6[1]; port = v6[2]; } else if (!net.isIPv6(rest)) {
    const hp = /^([^:]+)(?::(\d+))?$/.exec(rest);
    if (!hp) return undefined;
    host = hp[1]; port = hp[2];
  }
  if (scheme && port === undefined) port = scheme === 'https' ? '443' : '80';
  const sub = host.startsWith('*.') || host.startsWith('.');
  host = host.replace(/^\*?\./, '').replace(/\.$/, '');
  if (!net.isIP(host) && !HOST_NAME.test(host)) return undefined;
  if (port !== undefined && !(Number(port) > 0 && Number(port) < 65536)) return undefined;
  return { scheme, host, sub, port };
}

export function parseOutboundSettings(env: NodeJS.ProcessEnv = process.env): OutboundSettings {
  const clientCertHosts = (env.COORD_CLIENT_CERT_HOSTS ?? '').split(',').map((e) => e.trim()).filter(Boolean);
  for (const e of clientCertHosts) {
    if (!parseHostPattern(e)) throw new OutboundConfigError(`COORD_CLIENT_CERT_HOSTS: "${e.slice(0, 80)}" is not a host, host:port or https://host[:port] (comma-separated)`);
  }
  return {
    allow: parseAccessList(env.OUTBOUND_ALLOW, 'OUTBOUND_ALLOW'),
    deny: parseAccessList(env.OUTBOUND_DENY, 'OUTBOUND_DENY'),
    maxBody: {
      keystone: sizeSetting(env.OUTBOUND_MAX_BODY_KEYSTONE, 'OUTBOUND_MAX_BODY_KEYSTONE', DEFAULT_MAX_BODY.keystone),
      heat: sizeSetting(env.OUTBOUND_MAX_BODY_HEAT, 'OUTBOUND_MAX_BODY_HEAT', DEFAULT_MAX_BODY.heat),
      coord: sizeSetting(env.OUTBOUND_MAX_BODY_COORD, 'OUTBOUND_MAX_BODY_COORD', DEFAULT_MAX_BODY.coord),
    },
    clientCertHosts,
  };
}

let cached: { key: string; settings: OutboundSettings } | undefined;

/**
 * The settings from process.env, parsed once per distinct set of values
 * (so a changed variable is seen). Throws OutboundConfigError on a malformed
 * value: a process can call it at start-up to fail early.
 */
export function outboundSettings(): OutboundSettings {
  const key = JSON.stringify(VARIABLES.map((v) => process.env[v] ?? null));
  if (cached?.key !== key) cached = { key, settings: parseOutboundSettings(process.env) };
  return cached.settings;
}

// ---- decisions --------------------------------------------------------------

/**
 * Why `address` (reached for host name `host`, when there is one) is refused,
 * or undefined when the policy lets it through.
 */
export function addressProblem(address: string, host: string | undefined, s: OutboundSettings = outboundSettings()): string | undefined {
  const ip = parseIp(address);
  if (!ip) return `${address} is not an IP address`;
  const shown = showIp(ip);
  const via = host && normName(host) !== normName(address) ? `${host} resolves to ${shown}, which` : shown;
  const denied = narrowest(ip, s.deny.cidrs);
  if (denied) return `${via} is in OUTBOUND_DENY (${denied.text})`;
  const builtin = narrowest(ip, BUILTIN_DENY);
  const allowed = narrowest(ip, s.allow.cidrs);
  if (builtin && !(allowed && allowed.bits >= builtin.bits)) {
    return `${via} is ${builtin.label} (${builtin.text}), refused by default; an OUTBOUND_ALLOW entry at least as narrow opens it`;
  }
  if (s.allow.raw.length && !allowed && !(host && nameMatches(host, s.allow.names))) return `${via} is not in OUTBOUND_ALLOW`;
  return undefined;
}

/** Why a host name is refused by name alone (before resolution), or undefined. */
function hostNameProblem(host: string, s: OutboundSettings): string | undefined {
  const denied = nameMatches(host, s.deny.names);
  if (denied) return `${host} is in OUTBOUND_DENY (${denied.text})`;
  if (nameMatches(host, BUILTIN_DENY_NAMES)) return `${host} is a cloud metadata host name, refused by default`;
  return undefined;
}

/** A URL as it may appear in a message: no user info, no query, no fragment. */
export function showUrl(u: URL | string): string {
  try {
    const x = typeof u === 'string' ? new URL(u) : u;
    return `${x.protocol}//${x.host}${x.pathname}`;
  } catch {
    return '<invalid URL>';
  }
}

export interface UrlCheckOptions {
  /** What the URL is, for messages ("VIM auth_url", "coordination endpoint"...). */
  purpose?: string;
  /** A base URL that gets paths appended (auth_url, endpoints): no query, no fragment. */
  base?: boolean;
  settings?: OutboundSettings;
}

/**
 * Every check that needs no network: absolute http(s) URL, no credentials,
 * (for a base URL) no query or fragment, host name rules, and the address
 * rules when the host is an IP literal. Host names still go through
 * policyLookup when connecting. Returns the reason, or undefined.
 *
 * This is the function an API can call to answer 400/422 up front.
 */
export function outboundUrlProblem(url: string | URL, o: UrlCheckOptions = {}): string | undefined {
  const what = o.purpose ?? 'URL';
  let u: URL;
  try {
    u = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return `the ${what} is not an absolute URL`;
  }
  const shown = showUrl(u);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `the ${what} ${shown} must be http or https`;
  if (u.username || u.password) return `the ${what} ${shown} must not carry credentials (user:password@)`;
  if (o.base && (u.search || u.hash || /[?#]/.test(typeof url === 'string' ? url : u.href))) {
    return `the ${what} ${shown} must not have a query or fragment`;
  }
  let s: OutboundSettings;
  try {
    s = o.settings ?? outboundSettings();
  } catch (e) {
    return (e as Error).message;
  }
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) return `the ${what} ${shown} has no host`;
  const why = net.isIP(host) ? addressProblem(host, undefined, s) : hostNameProblem(host, s);
  return why ? `the outbound policy refuses the ${what} ${shown}: ${why}` : undefined;
}

/** outboundUrlProblem, thrown as OutboundRefused; the parsed URL otherwise. */
export function checkOutboundUrl(url: string | URL, o: UrlCheckOptions = {}): URL {
  const why = outboundUrlProblem(url, o);
  if (why) throw new OutboundRefused(why);
  return typeof url === 'string' ? new URL(url) : url;
}

/**
 * Why a VIM's Keystone v3 auth_url (vimConnectionInfo interfaceInfo.endpoint)
 * is refused, or undefined: the API's up-front check, and the one
 * KeystoneSession applies before the password is sent.
 */
export function vimEndpointProblem(url: string): string | undefined {
  return outboundUrlProblem(url, { purpose: 'VIM auth_url', base: true });
}

// ---- resolution -------------------------------------------------------------

export interface ResolvedAddress { address: string; family: number }
/** Resolves a host name to all its addresses (dns.lookup by default). */
export type Resolver = (hostname: string, family: 0 | 4 | 6) => Promise<ResolvedAddress[]>;

const systemResolver: Resolver = (hostname, family) => dns.promises.lookup(hostname, { all: true, family, verbatim: true });
let resolver: Resolver = systemResolver;

/** Replaces the resolver (tests: there is no DNS server to point a name at a denied address); undefined restores dns.lookup. */
export function useResolver(r: Resolver | undefined): void {
  resolver = r ?? systemResolver;
}

/** All addresses of `hostname`, each checked: one refused address refuses the name. */
export async function resolveChecked(hostname: string, o: { purpose?: string; family?: 0 | 4 | 6; settings?: OutboundSettings } = {}): Promise<ResolvedAddress[]> {
  const s = o.settings ?? outboundSettings();
  const host = normName(hostname);
  const byName = hostNameProblem(host, s);
  if (byName) throw new OutboundRefused(`the outbound policy refuses the ${o.purpose ?? 'destination'} ${hostname}: ${byName}`);
  const addrs = net.isIP(host) ? [{ address: host, family: net.isIP(host) }] : await resolver(host, o.family ?? 0);
  if (!addrs.length) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
  for (const a of addrs) {
    const why = addressProblem(a.address, host, s);
    if (why) throw new OutboundRefused(`the outbound policy refuses the ${o.purpose ?? 'destination'} ${hostname}: ${why}`);
  }
  return addrs;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request / net.connect: resolves with the policy's
 * resolver, checks every address and gives the socket exactly the checked
 * ones (both the single-address and the `all` form Node 20 uses with
 * autoSelectFamily).
 */
export function policyLookup(purpose?: string) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    const fam = options?.family === 4 || options?.family === 'IPv4' ? 4 : options?.family === 6 || options?.family === 'IPv6' ? 6 : 0;
    resolveChecked(hostname, { purpose, family: fam }).then(
      (addrs) => (options?.all ? callback(null, addrs) : callback(null, addrs[0].address, addrs[0].family)),
      (err: NodeJS.ErrnoException) => callback(err, options?.all ? [] : '', 0),
    );
  };
}

// ---- credentials scoped to hosts ---------------------------------------------

/** Whether `url` is one of the COORD_CLIENT_CERT_HOSTS-style entries. */
export function hostListAllows(url: URL, entries: readonly string[]): boolean {
  const host = normName(url.hostname);
  const port = url.port || (url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '');
  const scheme = url.protocol.replace(/:$/, '');
  return entries.some((e) => {
    const p = parseHostPattern(e);
    if (!p) return false;
    if (p.scheme && p.scheme !== scheme) return false;
    if (p.port !== undefined && p.port !== port) return false;
    const h = normName(p.host);
    if (net.isIP(h) && net.isIP(host)) return showIp(parseIp(h)!) === showIp(parseIp(host)!);
    return p.sub ? host.endsWith(`.${h}`) : host === h;
  });
}

// ---- responses ----------------------------------------------------------------

/**
 * Reads a response body up to `limit` bytes; beyond it (or when
 * Content-Length announces more) the response is destroyed and the promise
 * rejects with ResponseTooLarge, having held at most `limit` bytes.
 */
export function readCapped(res: IncomingMessage, limit: number, where: string, setting?: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => new ResponseTooLarge(
      `${where}: the response is larger than ${formatBytes(limit)}${setting ? ` (${setting})` : ''}; aborted`, limit);
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      res.destroy();
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    res.on('data', (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > limit) {
        done = true;
        chunks.length = 0;
        res.destroy();
        reject(tooLarge());
        return;
      }
      chunks.push(c);
    });
    res.on('end', () => { if (!done) { done = true; resolve(Buffer.concat(chunks)); } });
    res.on('error', (e) => { if (!done) { done = true; reject(e); } });
    res.on('aborted', () => {
      if (!done) { done = true; reject(Object.assign(new Error('connection closed before the response was complete'), { code: 'ECONNRESET' })); }
    });
  });
}

// ---- remote text in errors -----------------------------------------------------

export const EXCERPT_MAX = 200;
const WINDOW = 2048;
/** Terminal escape sequences (CSI, OSC) as a whole, so no "[31m" debris is left. */
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u009b[0-?]*[ -/]*[@-~]/g;
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]+/g;
/**
 * A key and its separator (`"key": `, `key=`), matched from the start of a word only: every pattern here
 * runs in time linear in the text (a lazy key prefix before the secret word, with a backreference after
 * it, was cubic: seconds per 2 KiB of a remote body). SECRET_KEY then says whether the key names a secret.
 */
const KEY_SEP = /(?<![\w.-])(["']?)([\w.-]+)\1(\s*[:=]\s*)/g;
const SECRET_KEY = /pass(?:word|wd)?|secret|token|private_?key|credential|api_?key|authorization|cookie/i;
/** The value after a secret key's separator, from where KEY_SEP stopped (sticky). */
const PAIR_VALUE = /(["']?)(?:bearer\s+|basic\s+)?[^"'\s,;&}\]]+/iy;
const AUTH_VALUE = /\b(Bearer|Basic)\s+[\w.~+/=-]{6,}/gi;

/** `password=…`, `"token": "…"`: the value of every key that names a secret masked (its quotes kept). */
function maskSecretPairs(s: string): string {
  let out = '';
  let done = 0;
  KEY_SEP.lastIndex = 0;
  for (let m = KEY_SEP.exec(s); m; m = KEY_SEP.exec(s)) {
    if (!SECRET_KEY.test(m[2])) continue; // the value is scanned on: it may hold `token=…` itself
    PAIR_VALUE.lastIndex = KEY_SEP.lastIndex;
    const v = PAIR_VALUE.exec(s);
    if (!v) continue;
    out += `${s.slice(done, KEY_SEP.lastIndex)}${v[1]}${MASK}`;
    done = KEY_SEP.lastIndex = PAIR_VALUE.lastIndex;
  }
  return out + s.slice(done);
}

/**
 * Remote text (an error body) as it may appear in an op occ error: at most
 * `max` characters, terminal escapes, control and bidi characters removed, the given secrets
 * (and their base64 / URL-encoded forms) masked, URL passwords hidden
 * (redactString), `password=…` / `"token": "…"` / `Bearer …` values masked.
 */
export function excerpt(text: unknown, secrets: readonly (string | undefined)[] = [], max = EXCERPT_MAX): string {
  let s = String(text ?? '').slice(0, WINDOW);
  for (const secret of secrets) {
    if (!secret || secret.length < 3) continue;
    for (const form of new Set([secret, Buffer.from(secret).toString('base64'), encodeURIComponent(secret)])) s = s.split(form).join(MASK);
  }
  s = maskSecretPairs(redactString(s.replace(ANSI, ' ').replace(CONTROL, ' ')))
    .replace(AUTH_VALUE, `$1 ${MASK}`)
    .replace(/\s+/g, ' ')
    .trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
