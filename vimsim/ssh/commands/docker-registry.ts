/**
 * docker pull/push/login. Docker Hub is always reachable; a private registry
 * ("host:port/...") must be a running registry container on a simulated
 * host, and — being plain HTTP — must be listed in insecure-registries of
 * /etc/docker/daemon.json (loaded at daemon start) unless it is localhost.
 */
import { createHash } from 'node:crypto';
import { normalizeRef, registryOf, type DockerContainer } from '../host/docker';
import type { SimHost } from '../host/host';
import { connect } from '../host/http';
import { ipToInt, parseCidr } from '../../network/ip';
import type { CommandContext } from './types';

const IMPLICITLY_INSECURE = new Set(['localhost', '127.0.0.1', '::1']);

function isInsecureAllowed(from: SimHost, registry: string): boolean {
  const hostname = registry.replace(/:\d+$/, '');
  if (IMPLICITLY_INSECURE.has(hostname)) return true;
  return from.docker.insecureRegistries.some((entry) => {
    if (entry === registry || entry === hostname) return true;
    const cidr = parseCidr(entry);
    const ip = ipToInt(hostname);
    return cidr !== undefined && ip !== undefined && ip >= cidr.base && ip < cidr.base + cidr.size;
  });
}

/** The registry container behind "host:port", or the daemon's error text. */
export function reachRegistry(from: SimHost, registry: string): { host: SimHost; container: DockerContainer } | { error: string } {
  const [hostname, portText] = registry.split(':');
  const port = Number(portText ?? 443);
  const conn = connect(from, hostname, port);
  if ('curlCode' in conn) return { error: `Get "https://${registry}/v2/": dial tcp ${hostname}:${port}: connect: connection refused` };
  if (!isInsecureAllowed(from, registry)) return { error: `Get "https://${registry}/v2/": http: server gave HTTP response to HTTPS client` };
  return conn;
}

const digest = (ref: string) => `sha256:${createHash('sha256').update(ref).digest('hex')}`;

export function pull(ctx: CommandContext, ref: string, quiet: boolean, out = ctx.io.stdout): number {
  const { docker } = ctx.sh.host;
  const norm = normalizeRef(ref);
  const tag = norm.slice(norm.lastIndexOf(':') + 1);
  const private_ = registryOf(ref);
  if (private_) {
    const reg = reachRegistry(ctx.sh.host, private_.registry);
    if ('error' in reg) {
      ctx.io.stderr.write(`Error response from daemon: ${reg.error}\n`);
      return 1;
    }
    if (!reg.host.docker.registryStore(reg.container).has(private_.path)) {
      ctx.io.stderr.write(`Error response from daemon: manifest for ${norm} not found: manifest unknown: manifest unknown\n`);
      return 1;
    }
  }
  const existing = docker.findImage(norm);
  if (!quiet) {
    out.write(`${tag}: Pulling from ${private_ ? private_.path.slice(0, private_.path.lastIndexOf(':')) : norm.includes('/') ? norm.slice(0, norm.lastIndexOf(':')) : `library/${norm.slice(0, norm.lastIndexOf(':'))}`}\n`);
    out.write(`Digest: ${digest(norm)}\n`);
    out.write(existing ? `Status: Image is up to date for ${norm}\n` : `Status: Downloaded newer image for ${norm}\n`);
  }
  out.write(`${private_ || norm.includes('/') ? norm : `docker.io/library/${norm}`}\n`);
  if (!existing) docker.addImage(norm, 'pull', 25_000_000);
  return 0;
}

export function push(ctx: CommandContext, ref: string): number {
  const { docker } = ctx.sh.host;
  const norm = normalizeRef(ref);
  const image = docker.findImage(norm);
  if (!image) {
    ctx.io.stderr.write(`An image does not exist locally with the tag: ${ref.replace(/:latest$/, '')}\n`);
    return 1;
  }
  const target = registryOf(ref);
  ctx.io.stdout.write(`The push refers to repository [${target ? `${target.registry}/${target.path.slice(0, target.path.lastIndexOf(':'))}` : `docker.io/library/${norm.slice(0, norm.lastIndexOf(':'))}`}]\n`);
  if (!target) {
    ctx.io.stderr.write('denied: requested access to the resource is denied\n');
    return 1;
  }
  const reg = reachRegistry(ctx.sh.host, target.registry);
  if ('error' in reg) {
    ctx.io.stderr.write(`${reg.error}\n`);
    return 1;
  }
  reg.host.docker.registryStore(reg.container).add(target.path);
  ctx.io.stdout.write(`${image.id.slice(0, 12)}: Pushed\n${target.path.slice(target.path.lastIndexOf(':') + 1)}: digest: ${digest(norm)} size: 528\n`);
  return 0;
}

export async function login(ctx: CommandContext, server: string | undefined, user: string | undefined, password: string | undefined, passwordStdin: boolean): Promise<number> {
  const { io, sh } = ctx;
  let secret = password;
  if (password !== undefined) io.stderr.write('WARNING! Using --password via the CLI is insecure. Use --password-stdin.\n');
  if (passwordStdin) secret = (await io.stdin.readAll()).toString('utf8').replace(/\r?\n$/, '');
  if (user === undefined || secret === undefined) {
    io.stderr.write('Error: Cannot perform an interactive login from a non TTY device\n');
    return 1;
  }
  const registry = server ?? 'https://index.docker.io/v1/';
  if (server) {
    const reg = reachRegistry(sh.host, server.replace(/^https?:\/\//, '').replace(/\/$/, ''));
    if ('error' in reg) {
      io.stderr.write(`Error response from daemon: ${reg.error}\n`);
      return 1;
    }
  }
  // Like the real CLI: credentials land unencrypted in ~/.docker/config.json of whoever ran it.
  const dir = `${sh.user.home}/.docker`;
  sh.host.fs.mkdir(dir, sh.who, { parents: true });
  const auth = Buffer.from(`${user}:${secret}`).toString('base64');
  const file = `${dir}/config.json`;
  let config: { auths?: Record<string, unknown> } = {};
  try {
    config = JSON.parse(sh.host.fs.readFile(file, sh.who).toString('utf8')) as typeof config;
  } catch {
    // first login
  }
  config.auths = { ...config.auths, [registry]: { auth } };
  sh.host.fs.writeFile(file, JSON.stringify(config, null, '\t'), sh.who);
  sh.host.docker.loggedIn.add(registry);
  io.stderr.write(`WARNING! Your password will be stored unencrypted in ${dir}/config.json.\nConfigure a credential helper to remove this warning. See\nhttps://docs.docker.com/engine/reference/commandline/login/#credentials-store\n\n`);
  io.stdout.write('Login Succeeded\n');
  return 0;
}
