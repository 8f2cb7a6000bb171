import fs from 'node:fs';
import net from 'node:net';

/** A free loopback TCP port (asked from the kernel; it may be taken again before it is used, so bind soon). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/**
 * A free loopback port below the kernel's ephemeral range, for a server that is stopped and started again on the
 * same port: in between, no outgoing connection of another process can take it as its source port (as one may
 * an ephemeral port freePort answered).
 */
export async function freeStablePort(): Promise<number> {
  let low = 32768;
  try {
    low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low;
  } catch { /* not Linux: its default */ }
  const floor = Math.max(1024, low - 12_000);
  for (let tries = 0; tries < 50; tries++) {
    // 2,000 below the range: a server's ports next to its main one (the dev server's HTTP port) stay below it too
    const port = floor + Math.floor(Math.random() * (low - 2_000 - floor));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port found between ${floor} and ${low}`);
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}
