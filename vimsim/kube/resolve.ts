/**
 * Names as a simulated host resolves them for its Kubernetes clients:
 * loopback is the host itself (its own 127.x address, where its control plane
 * listens), IP addresses are dialled as they are, other names come from the
 * host's /etc/hosts, then from the simulated servers' host names.
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

export function hostResolver(host: SimHost): (hostname: string) => string {
  return (hostname) => {
    const name = hostname.toLowerCase();
    if (LOOPBACK.has(name) || name === host.hostname.toLowerCase()) return host.address;
    if (isIP(name)) return name;
    const fromHosts = etcHosts(host).get(name);
    if (fromHosts) return LOOPBACK.has(fromHosts) ? host.address : fromHosts;
    return host.hooks.resolve(name)?.address ?? name;
  };
}
