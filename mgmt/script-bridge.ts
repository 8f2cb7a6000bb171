/**
 * The host side of a sandboxed script's network (mgmt/script-jail.ts): a
 * unix socket in the job's directory. The jail's relays open one connection
 * per TCP connection of the script and name its target on the first line
 * (`<address> <port>`); only the job's own list is connected to, anything
 * else is closed unanswered.
 */
import net from 'node:net';
import type { Endpoint } from '../common/endpoints';

const HEADER_MAX = 256;

export interface Bridge { close(): void }

export async function openBridge(socketPath: string, reach: Endpoint[]): Promise<Bridge> {
  const allowed = new Set(reach.map((r) => `${r.host} ${r.port}`));
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server = net.createServer((inner) => {
    track(inner);
    let head = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      head = Buffer.concat([head, d]);
      const nl = head.indexOf(0x0a);
      if (nl < 0) {
        if (head.length > HEADER_MAX) inner.destroy();
        return;
      }
      inner.off('data', onData);
      inner.pause();
      const target = head.subarray(0, nl).toString('latin1');
      const rest = head.subarray(nl + 1);
      if (!allowed.has(target)) return void inner.destroy();
      const [host, port] = target.split(' ');
      const outer = net.connect({ host, port: Number(port) }, () => {
        if (rest.length) outer.write(rest);
        inner.pipe(outer).pipe(inner);
        inner.resume();
      });
      track(outer);
      outer.on('close', () => inner.end());
      inner.on('close', () => outer.end()); // ended, not destroyed: what is still queued gets out
    };
    inner.on('data', onData);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    close() {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}
