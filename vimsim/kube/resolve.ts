/**
 * Names as a simulated host resolves them for its Kubernetes clients:
 * loopback is the host itself (its own 127.x address, where its control plane
 * listens), other 127.0.0.0/8 addresses are the other simulated servers,
 * other names come from the host's /etc/hosts. Nothing else is dialled (the
 * simulated network is loopback only): a name that does not resolve is
 * undefined ("no such host"), an address off loopback unreachable.
 */
import { isIP } from 'node:net';
import type { SimHost } from '../ssh/host/host';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', 'ip6-localhost', 'ip6-loopback']);
const ROOT = { name: 'root', uid: 0, home: '/root' };

export function etcHosts(host: SimHost): Map<string, string> {
  const out = new Map<string, string>();
  if (!host.fs.isFile('/etc/hosts')) return out;
  for (const line of host.fs.readFile('/etc/hosts', ROOT).toString('utf8').split('\n')) {
    const [ip, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (!ip || !isIP(ip)) continue;
    for (const n of names) if (!out.has(n.toLowerCase())) out.set(n.toLowerCase(), ip);
  }
  return out;
}

export function hostResolver(host: SimHost): (hostname: string) => string | undefined {
  return (hostname) => {
    const name = hostname.toLowerCase();
    if (LOOPBACK.has(name) || name === host.hostname.toLowerCase()) return host.address;
    if (isIP(name)) return name;
    const fromHosts = etcHosts(host).get(name);
    if (fromHosts) return LOOPBACK.has(fromHosts) ? host.address : fromHosts;
    return undefined;
  };
}
