/**
 * Inside the Temporal dev server's own network namespace (runtime/temporal-isolation.ts;
 * node built-ins only): brings up the namespace's loopback, runs the dev
 * server there, and once its ports answer, opens a unix socket per port in
 * the isolation directory (DATA_DIR, 0700) for the relays outside. Nothing
 * else reaches the server's gRPC, HTTP API, metrics or UI ports. SIGTERM
 * stops the server, then this process.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

interface BridgeSpec { cmd: string; args: string[]; sockets: { path: string; port: number }[] }

const answers = (port: number) => new Promise<boolean>((resolve) => {
  const s = net.connect({ host: '127.0.0.1', port });
  s.once('connect', () => (s.destroy(), resolve(true)));
  s.once('error', () => resolve(false));
});

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2]!) as BridgeSpec;
  execFileSync('ip', ['link', 'set', 'lo', 'up'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const server = spawn(spec.cmd, spec.args, { stdio: 'inherit' });
  server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  process.on('SIGTERM', () => server.kill('SIGTERM'));
  process.on('SIGINT', () => server.kill('SIGTERM'));
  for (const { path, port } of spec.sockets) {
    while (!(await answers(port))) await new Promise((r) => setTimeout(r, 100));
    fs.rmSync(path, { force: true });
    net.createServer((outer) => {
      const inner = net.connect({ host: '127.0.0.1', port });
      outer.pipe(inner).pipe(outer);
      outer.on('error', () => inner.destroy());
      inner.on('error', () => outer.destroy());
    }).listen(path);
  }
}

if (require.main === module) {
  main().catch((e: Error) => {
    console.error(`temporal-ns-bridge: ${e.message}`);
    process.exit(1);
  });
}
