/**
 * The docker CLI against the host's simulated daemon. It exists once
 * docker-ce (or docker.io) is installed, needs root or the docker group, and
 * the docker service running — with the real CLI's messages otherwise.
 */
import path from 'node:path/posix';
import { FsError } from '../host/fs';
import { newId, normalizeRef, isRegistryImage } from '../host/docker';
import { dockerCliInstalled, dockerDaemonInstalled } from '../host/packages';
import { readImageArchive, writeImageArchive } from '../host/tar';
import { containerInspect, formatRows, goTemplate, imageInspect, imageRows, psRow, table } from './docker-format';
import { login, pull, push } from './docker-registry';
import { dockerRun } from './docker-run';
import { getopt, has, value, values, type CommandContext, type CommandTable } from './types';

const VERSION = '24.0.7';
const SOCKET_DENIED =
  'permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock: ' +
  'Get "http://%2Fvar%2Frun%2Fdocker.sock/v1.24/version": dial unix /var/run/docker.sock: connect: permission denied';
const NOT_RUNNING = 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?';

/** Why this user cannot talk to the daemon now, if it cannot. */
function daemonProblem(ctx: CommandContext): string | undefined {
  const { host } = ctx.sh;
  if (ctx.sh.user.uid !== 0 && !ctx.sh.user.groups.has('docker')) return SOCKET_DENIED;
  if (!dockerDaemonInstalled(host) || !host.services.get('docker')?.active) return NOT_RUNNING;
  return undefined;
}

function ps(ctx: CommandContext, args: string[]): number {
  const p = getopt(args, ['f', 'filter', 'format', 'n', 'last']);
  const { docker } = ctx.sh.host;
  const filters = values(p, 'f', 'filter').map((f) => f.split('=') as [string, string]);
  const rows = docker.containers
    .filter((c) => has(p, 'a', 'all') || c.state === 'running')
    .filter((c) =>
      filters.every(([k, v]) =>
        k === 'name' ? new RegExp(v).test(c.name) :
        k === 'status' ? c.state === v :
        k === 'ancestor' ? normalizeRef(c.image) === normalizeRef(v) :
        k === 'id' ? c.id.startsWith(v) :
        k === 'publish' ? c.ports.some((port) => String(port.hostPort) === v.split('/')[0]) : true,
      ),
    );
  if (has(p, 'q', 'quiet')) {
    ctx.io.stdout.write(rows.map((c) => `${c.id.slice(0, 12)}\n`).join(''));
    return 0;
  }
  const format = value(p, 'format');
  if (format) {
    ctx.io.stdout.write(formatRows(format, rows.map(psRow)));
    return 0;
  }
  const data = rows.map(psRow).map((r) => [r.ID, r.Image, r.Command, r.RunningFor, r.Status, r.Ports, r.Names]);
  ctx.io.stdout.write(table(['CONTAINER ID', 'IMAGE', 'COMMAND', 'CREATED', 'STATUS', 'PORTS', 'NAMES'], data));
  return 0;
}

function images(ctx: CommandContext, args: string[]): number {
  const p = getopt(args, ['f', 'filter', 'format']);
  const [ref] = p.operands;
  const { docker } = ctx.sh.host;
  let rows = imageRows(docker.images);
  if (ref) {
    const [repo, tag] = ref.includes(':') ? ref.split(':') : [ref, undefined];
    rows = rows.filter((r) => r.Repository === repo.replace(/^docker\.io\/(library\/)?/, '') && (tag === undefined || r.Tag === tag));
  }
  if (has(p, 'q', 'quiet')) {
    ctx.io.stdout.write([...new Set(rows.map((r) => r.ID))].map((id) => `${id}\n`).join(''));
    return 0;
  }
  const format = value(p, 'format');
  if (format) {
    ctx.io.stdout.write(formatRows(format, rows));
    return 0;
  }
  ctx.io.stdout.write(table(['REPOSITORY', 'TAG', 'IMAGE ID', 'CREATED', 'SIZE'], rows.map((r) => [r.Repository, r.Tag, r.ID, r.CreatedSince, r.Size])));
  return 0;
}

function inspect(ctx: CommandContext, args: string[], only?: 'container' | 'image'): number {
  const p = getopt(args, ['f', 'format', 'type']);
  const kind = only ?? (value(p, 'type') as 'container' | 'image' | undefined);
  const { docker } = ctx.sh.host;
  const found: Record<string, unknown>[] = [];
  let status = 0;
  for (const name of p.operands) {
    const c = kind !== 'image' ? docker.findContainer(name) : undefined;
    const i = !c && kind !== 'container' ? docker.findImage(name) : undefined;
    if (c) found.push(containerInspect(c));
    else if (i) found.push(imageInspect(i));
    else {
      ctx.io.stderr.write(`Error: No such ${kind === 'image' ? 'image' : kind === 'container' ? 'container' : 'object'}: ${name}\n`);
      status = 1;
    }
  }
  const format = value(p, 'f', 'format');
  if (format) ctx.io.stdout.write(found.map((o) => `${goTemplate(format, o)}\n`).join(''));
  else ctx.io.stdout.write(`${JSON.stringify(found, null, 4)}\n`);
  return status;
}

function lifecycle(ctx: CommandContext, verb: string, args: string[]): number {
  const p = getopt(args, ['t', 'time', 's', 'signal']);
  const { docker } = ctx.sh.host;
  let status = 0;
  for (const name of p.operands) {
    const c = docker.findContainer(name);
    if (!c) {
      ctx.io.stderr.write(`Error response from daemon: No such container: ${name}\n`);
      status = 1;
      continue;
    }
    if (verb === 'rm') {
      if (c.state === 'running' && !has(p, 'f', 'force')) {
        ctx.io.stderr.write(`Error response from daemon: You cannot remove a running container ${c.id}. Stop the container before attempting removal or force remove\n`);
        status = 1;
        continue;
      }
      docker.containers = docker.containers.filter((x) => x !== c);
    } else if (verb === 'stop' || verb === 'kill') {
      if (c.state === 'running') docker.stop(c, true);
    } else if (verb === 'start' || verb === 'restart') {
      const busy = c.ports.find((port) => docker.containers.some((o) => o !== c && o.state === 'running' && o.ports.some((q) => q.hostPort === port.hostPort)));
      if (busy) {
        ctx.io.stderr.write(`Error response from daemon: driver failed programming external connectivity on endpoint ${c.name}: Bind for 0.0.0.0:${busy.hostPort} failed: port is already allocated\nError: failed to start containers: ${name}\n`);
        status = 1;
        continue;
      }
      docker.start(c);
    }
    ctx.io.stdout.write(`${name}\n`);
  }
  return status;
}

async function load(ctx: CommandContext, args: string[]): Promise<number> {
  const p = getopt(args, ['i', 'input']);
  const file = value(p, 'i', 'input');
  let data: Buffer;
  try {
    data = file ? ctx.sh.host.fs.readFile(ctx.sh.resolve(file), ctx.sh.who) : await ctx.io.stdin.readAll();
  } catch (err) {
    if (!(err instanceof FsError)) throw err;
    ctx.io.stderr.write(`open ${file}: ${err.code === 'ENOENT' ? 'no such file or directory' : 'permission denied'}\n`);
    return 1;
  }
  if (data.length === 0) {
    ctx.io.stderr.write('Error response from daemon: unexpected EOF\n');
    return 1;
  }
  // A real `docker save` archive names its images; any other file is loaded under its file name (stand-in images in tests).
  const archive = readImageArchive(data);
  const id = newId(data.toString('base64'));
  const tags = archive ? archive.tags : [`${path.basename(file ?? 'image').replace(/(\.tar)?(\.gz|\.tgz)?$/, '').replace(/[^a-z0-9._-]/g, '') || 'image'}:latest`];
  const { docker } = ctx.sh.host;
  for (const tag of tags) docker.addImage(tag, 'load', data.length, id);
  if (tags.length === 0) docker.images.push({ id, repoTags: [], size: data.length, created: new Date().toISOString(), source: 'load' });
  if (!has(p, 'q', 'quiet')) ctx.io.stdout.write(tags.length ? tags.map((t) => `Loaded image: ${t}\n`).join('') : `Loaded image ID: sha256:${id}\n`);
  return 0;
}

function save(ctx: CommandContext, args: string[]): number {
  const p = getopt(args, ['o', 'output']);
  const missing = p.operands.find((r) => !ctx.sh.host.docker.findImage(r));
  if (missing || p.operands.length === 0) {
    ctx.io.stderr.write(`Error response from daemon: reference does not exist${missing ? `: ${missing}` : ''}\n`);
    return 1;
  }
  const archive = writeImageArchive(p.operands.map(normalizeRef));
  const output = value(p, 'o', 'output');
  if (output) ctx.sh.host.fs.writeFile(ctx.sh.resolve(output), archive, ctx.sh.who);
  else ctx.io.stdout.write(archive);
  return 0;
}

function rmi(ctx: CommandContext, args: string[]): number {
  const p = getopt(args);
  const { docker } = ctx.sh.host;
  let status = 0;
  for (const ref of p.operands) {
    const image = docker.findImage(ref);
    if (!image) {
      ctx.io.stderr.write(`Error response from daemon: No such image: ${ref}\n`);
      status = 1;
      continue;
    }
    const user = docker.containers.find((c) => c.imageId === image.id);
    if (user && !has(p, 'f', 'force')) {
      ctx.io.stderr.write(`Error response from daemon: conflict: unable to remove repository reference "${ref}" (must force) - container ${user.id.slice(0, 12)} is using its referenced image ${image.id.slice(0, 12)}\n`);
      status = 1;
      continue;
    }
    const tag = normalizeRef(ref);
    image.repoTags = image.repoTags.filter((t) => t !== tag);
    ctx.io.stdout.write(`Untagged: ${tag}\n`);
    if (image.repoTags.length === 0) {
      docker.images = docker.images.filter((i) => i !== image);
      ctx.io.stdout.write(`Deleted: sha256:${image.id}\n`);
    }
  }
  return status;
}

function info(ctx: CommandContext, args: string[]): number {
  const { docker } = ctx.sh.host;
  const p = getopt(args, ['f', 'format']);
  const running = docker.containers.filter((c) => c.state === 'running').length;
  const proxy = docker.proxyEnv;
  const data = {
    Containers: docker.containers.length, ContainersRunning: running, ContainersStopped: docker.containers.length - running,
    Images: docker.images.length, ServerVersion: VERSION, Driver: 'overlay2', CgroupDriver: docker.cgroupDriver,
    HttpProxy: proxy.HTTP_PROXY ?? proxy.http_proxy ?? '', HttpsProxy: proxy.HTTPS_PROXY ?? proxy.https_proxy ?? '', NoProxy: proxy.NO_PROXY ?? proxy.no_proxy ?? '',
    RegistryConfig: { InsecureRegistryCIDRs: ['127.0.0.0/8'], IndexConfigs: {} }, InsecureRegistries: docker.insecureRegistries,
  };
  const format = value(p, 'f', 'format');
  if (format) {
    ctx.io.stdout.write(`${goTemplate(format, data)}\n`);
    return 0;
  }
  const lines = [
    'Client: Docker Engine - Community', ` Version:    ${VERSION}`, ' Context:    default', '',
    'Server:', ` Containers: ${data.Containers}`, `  Running: ${running}`, '  Paused: 0', `  Stopped: ${data.ContainersStopped}`,
    ` Images: ${data.Images}`, ` Server Version: ${VERSION}`, ' Storage Driver: overlay2', ' Logging Driver: json-file',
    ` Cgroup Driver: ${docker.cgroupDriver}`, ' Operating System: Ubuntu 20.04.6 LTS', ' Architecture: x86_64',
    ...(data.HttpProxy ? [` HTTP Proxy: ${data.HttpProxy}`] : []),
    ...(data.HttpsProxy ? [` HTTPS Proxy: ${data.HttpsProxy}`] : []),
    ...(data.NoProxy ? [` No Proxy: ${data.NoProxy}`] : []),
    ' Experimental: false', ' Insecure Registries:', ...docker.insecureRegistries.map((r) => `  ${r}`), '  127.0.0.0/8', ' Live Restore Enabled: false', '',
  ];
  ctx.io.stdout.write(lines.join('\n'));
  return 0;
}

/** `docker image ls` -> images, `docker container rm` -> rm, ... */
const GROUPS: Record<string, Record<string, string>> = {
  image: { ls: 'images', list: 'images', inspect: 'image-inspect', rm: 'rmi', remove: 'rmi', pull: 'pull', push: 'push', load: 'load', save: 'save', tag: 'tag', prune: 'noop' },
  container: { ls: 'ps', list: 'ps', ps: 'ps', inspect: 'container-inspect', rm: 'rm', start: 'start', stop: 'stop', restart: 'restart', kill: 'kill', logs: 'logs', run: 'run', create: 'create', exec: 'exec', prune: 'noop' },
  system: { info: 'info', prune: 'noop' },
};

async function docker(ctx: CommandContext): Promise<number> {
  let args = [...ctx.args];
  // Global options before the subcommand.
  while (args.length && args[0].startsWith('-') && !['-v', '--version'].includes(args[0])) {
    args = ['-H', '--host', '--config', '-l', '--log-level', '-c', '--context'].includes(args[0]) ? args.slice(2) : args.slice(1);
  }
  let [sub, ...rest] = args;
  if (sub === '-v' || sub === '--version') {
    ctx.io.stdout.write(`Docker version ${VERSION}, build afdd53b\n`);
    return 0;
  }
  if (sub === undefined || sub === 'help' || sub === '--help') {
    ctx.io.stdout.write('Usage:  docker [OPTIONS] COMMAND\n\nA self-sufficient runtime for containers\n');
    return 0;
  }
  if (GROUPS[sub] && rest[0] && GROUPS[sub][rest[0]]) [sub, ...rest] = [GROUPS[sub][rest[0]], ...rest.slice(1)];
  const problem = daemonProblem(ctx);
  if (sub === 'version') {
    ctx.io.stdout.write(`Client: Docker Engine - Community\n Version:           ${VERSION}\n API version:       1.43\n`);
    if (problem) {
      ctx.io.stderr.write(`${problem}\n`);
      return 1;
    }
    ctx.io.stdout.write(`\nServer: Docker Engine - Community\n Engine:\n  Version:          ${VERSION}\n  API version:      1.43 (minimum version 1.12)\n`);
    return 0;
  }
  if (problem) {
    const isRun = sub === 'run' || sub === 'create';
    ctx.io.stderr.write(isRun ? `docker: ${problem}.\nSee 'docker ${sub} --help'.\n` : `${problem}\n`);
    return isRun ? 125 : 1;
  }
  const quiet = has(getopt(rest), 'q', 'quiet');
  switch (sub) {
    case 'ps': return ps(ctx, rest);
    case 'images': return images(ctx, rest);
    case 'inspect': return inspect(ctx, rest);
    case 'container-inspect': return inspect(ctx, rest, 'container');
    case 'image-inspect': return inspect(ctx, rest, 'image');
    case 'run': return dockerRun(ctx, rest, false);
    case 'create': return dockerRun(ctx, rest, true);
    case 'rm': case 'stop': case 'start': case 'restart': case 'kill': return lifecycle(ctx, sub, rest);
    case 'rmi': return rmi(ctx, rest);
    case 'load': return load(ctx, rest);
    case 'save': return save(ctx, rest);
    case 'pull': {
      const ref = getopt(rest, ['platform']).operands[0];
      if (!ref) break;
      return pull(ctx, ref, quiet);
    }
    case 'push': {
      const ref = getopt(rest).operands[0];
      if (!ref) break;
      return push(ctx, ref);
    }
    case 'tag': {
      const [src, dst] = getopt(rest).operands;
      const image = src ? ctx.sh.host.docker.findImage(src) : undefined;
      if (!image || !dst) {
        ctx.io.stderr.write(`Error response from daemon: No such image: ${src ?? ''}\n`);
        return 1;
      }
      ctx.sh.host.docker.addImage(dst, 'tag', image.size, image.id);
      return 0;
    }
    case 'login': {
      const p = getopt(rest, ['u', 'username', 'p', 'password']);
      return login(ctx, p.operands[0], value(p, 'u', 'username'), value(p, 'p', 'password'), has(p, 'password-stdin'));
    }
    case 'logout':
      ctx.sh.host.docker.loggedIn.delete(rest[0] ?? 'https://index.docker.io/v1/');
      ctx.io.stdout.write(`Removing login credentials for ${rest[0] ?? 'https://index.docker.io/v1/'}\n`);
      return 0;
    case 'logs': {
      const c = ctx.sh.host.docker.findContainer(getopt(rest, ['n', 'tail', 'since']).operands[0] ?? '');
      if (!c) {
        ctx.io.stderr.write(`Error response from daemon: No such container: ${rest[rest.length - 1] ?? ''}\n`);
        return 1;
      }
      if (isRegistryImage(c.image)) ctx.io.stderr.write(`time="${c.startedAt}" level=info msg="listening on [::]:5000" go.version=go1.20.8\n`);
      return 0;
    }
    case 'exec': {
      const p = getopt(rest, ['e', 'env', 'u', 'user', 'w', 'workdir'], true);
      const c = ctx.sh.host.docker.findContainer(p.operands[0] ?? '');
      if (!c || c.state !== 'running') {
        ctx.io.stderr.write(`Error response from daemon: ${c ? `Container ${c.id} is not running` : `No such container: ${p.operands[0] ?? ''}`}\n`);
        return 1;
      }
      return 0;
    }
    case 'info': return info(ctx, rest);
    case 'noop': return 0;
    case 'network': case 'volume':
      ctx.io.stdout.write(sub === 'network' ? 'NETWORK ID     NAME      DRIVER    SCOPE\n' + `${newId('bridge').slice(0, 12)}   bridge    bridge    local\n` : 'DRIVER    VOLUME NAME\n');
      return 0;
    default:
      ctx.io.stderr.write(`docker: '${sub}' is not a docker command.\nSee 'docker --help'\n`);
      return 1;
  }
  ctx.io.stderr.write(`"docker ${sub}" requires at least 1 argument.\nSee 'docker ${sub} --help'.\n`);
  return 1;
}

export const DOCKER_COMMANDS: CommandTable = {
  docker: { run: docker, available: dockerCliInstalled },
};
