/** Settings that name TCP ports and host:port endpoints (IP literals only: a name would be resolved where the setting is not checked). */
import net from 'node:net';

export interface Endpoint { host: string; port: number }

function port(name: string, raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > 65535) throw new Error(`${name}: "${raw}" is not a TCP port (1-65535)`);
  return n;
}

/** "22,6443" -> [22, 6443]; empty or unset -> dflt. */
export function portsFromSetting(name: string, raw: string | undefined, dflt: number[]): number[] {
  const items = (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return items.length ? [...new Set(items.map((p) => port(name, p)))] : dflt;
}

/** "192.0.2.10:5000,[2001:db8::1]:443" -> endpoints; unset -> none. */
export function endpointsFromSetting(name: string, raw: string | undefined): Endpoint[] {
  return (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean).map((item) => {
    const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([0-9.]+)):(\d+)$/.exec(item);
    const host = m?.[1] ?? m?.[2];
    if (!m || !host || net.isIP(host) === 0) throw new Error(`${name}: "${item}" is not <IPv4>:<port> or [<IPv6>]:<port>`);
    return { host, port: port(name, m[3]!) };
  });
}
