/** IPv4 arithmetic for the simulated Neutron IPAM (and the hosts' network checks). */

export interface Cidr {
  /** Network address as an integer. */
  base: number;
  size: number;
  prefix: number;
}

export function ipToInt(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((acc, o) => acc * 256 + Number(o), 0);
}

export function intToIp(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/** "10.0.0.0/24" (host bits may be set, as Neutron accepts them in requests and normalizes). */
export function parseCidr(cidr: string): Cidr | undefined {
  const m = /^([\d.]+)\/(\d{1,2})$/.exec(cidr.trim());
  if (!m) return undefined;
  const ip = ipToInt(m[1]);
  const prefix = Number(m[2]);
  if (ip === undefined || prefix > 32) return undefined;
  const size = 2 ** (32 - prefix);
  return { base: ip - (ip % size), size, prefix };
}

export function formatCidr(cidr: Cidr): string {
  return `${intToIp(cidr.base)}/${cidr.prefix}`;
}

export function inCidr(ip: string, cidr: Cidr): boolean {
  const n = ipToInt(ip);
  return n !== undefined && n >= cidr.base && n < cidr.base + cidr.size;
}

/** 127.0.0.0/8: every address is local on Linux, so a server there can answer SSH itself. */
export function isLoopback(ip: string): boolean {
  return ip.startsWith('127.') && ipToInt(ip) !== undefined;
}
