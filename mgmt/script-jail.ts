/**
 * The first process of a package script's namespaces: pid 1 of its own pid
 * namespace, root of its own network and mount namespaces (started by
 * mgmt/script-runner.ts through `unshare`; node built-ins only). It
 * 1. brings up the namespace's own loopback, with the addresses the script
 *    may reach and nothing routed anywhere else: the host's loopback
 *    services (Keystone, Temporal, the simulator, the API) are not there;
 * 2. hides the host's /tmp, /var/tmp and /dev/shm under private tmpfs of a
 *    capped size, and puts the script in /tmp/job (its home);
 * 3. relays TCP for each allowed address:port to the scripts worker through
 *    the job's unix socket (mgmt/script-bridge.ts), which connects out;
 * 4. runs the script as the job's uid: no groups, no capabilities, no new
 *    privileges, CPU time, file size, address space and processes limited;
 * 5. exits with it: the kernel then kills everything left in the namespace
 *    (setsid, double fork, nohup).
 * A setup failure exits SETUP_FAILED with `nfv-sandbox: <why>` on stderr.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const SETUP_FAILED = 125;
export const SETUP_MARK = 'nfv-sandbox:';
/** The script's home and working directory, inside the private /tmp. */
export const JOB_HOME = '/tmp/job';

export interface JailSpec {
  /** The job's directory on the host (0700, root): `script` and `bridge.sock`. */
  dir: string;
  /** The script's file name in JOB_HOME. */
  name: string;
  uid: number;
  reach: { host: string; port: number }[];
  tmpBytes: number;
  /** prlimit options: --as, --cpu, --fsize, --nproc, --core. */
  rlimits: string[];
  env: Record<string, string>;
}

const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });

function network(spec: JailSpec): void {
  run('ip', ['link', 'set', 'lo', 'up']);
  for (const host of new Set(spec.reach.map((r) => r.host))) {
    const v6 = net.isIPv6(host);
    // 127.0.0.0/8 and ::1 are the namespace's loopback already; any other address is put on it, so a relay can listen there.
    if (v6 ? host !== '::1' : !host.startsWith('127.')) run('ip', ['addr', 'add', `${host}/${v6 ? 128 : 32}`, 'dev', 'lo']);
  }
}

function privateTmp(spec: JailSpec, script: Buffer): string {
  run('mount', ['--make-rprivate', '/']);
  for (const dir of ['/tmp', '/var/tmp', '/dev/shm']) {
    if (fs.existsSync(dir)) run('mount', ['-t', 'tmpfs', '-o', `size=${spec.tmpBytes},mode=1777,nosuid,nodev`, 'tmpfs', dir]);
  }
  fs.mkdirSync(JOB_HOME, { mode: 0o700 });
  fs.chownSync(JOB_HOME, spec.uid, spec.uid);
  const exe = path.join(JOB_HOME, spec.name);
  fs.writeFileSync(exe, script, { mode: 0o700 });
  fs.chownSync(exe, spec.uid, spec.uid);
  return exe;
}

/** One listener per allowed address:port; each connection goes out through the scripts worker, which checks it again. */
async function relays(spec: JailSpec, bridge: string): Promise<void> {
  await Promise.all(spec.reach.map(({ host, port }) => new Promise<void>((resolve, reject) => {
    const server = net.createServer((inner) => {
      const outer = net.connect(bridge);
      outer.write(`${host} ${port}\n`); // queued before anything the script sends
      inner.pipe(outer).pipe(inner);
      inner.on('error', () => outer.destroy());
      outer.on('error', () => inner.destroy());
      inner.on('close', () => outer.end()); // ended, not destroyed: what is still queued gets out
      outer.on('close', () => inner.end());
    });
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  })));
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2]!) as JailSpec;
  // The job directory stays reachable through this descriptor once the private /tmp hides it.
  const dirFd = fs.openSync(spec.dir, 'r');
  const script = fs.readFileSync(path.join(spec.dir, 'script'));
  network(spec);
  const exe = privateTmp(spec, script);
  await relays(spec, `/proc/self/fd/${dirFd}/bridge.sock`);
  const uid = String(spec.uid);
  const child = spawn('setpriv', [
    '--reuid', uid, '--regid', uid, '--clear-groups', '--no-new-privs', '--inh-caps=-all', '--bounding-set=-all', '--',
    'prlimit', ...spec.rlimits, '--', exe,
  ], { cwd: JOB_HOME, env: spec.env, stdio: 'inherit' });
  child.on('error', (e) => fail(`the script could not be started: ${e.message}`));
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (signal ? os.constants.signals[signal] : 0)));
}

function fail(why: string): never {
  process.stderr.write(`${SETUP_MARK} ${why}\n`);
  process.exit(SETUP_FAILED);
}

if (require.main === module) {
  main().catch((e: Error & { stderr?: Buffer }) => fail(`${e.message}${e.stderr?.length ? `: ${e.stderr.toString().trim()}` : ''}`));
}
