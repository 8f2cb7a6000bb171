/** `docker run` (and `docker create`): options, image pull, name and port conflicts, bind mounts. */
import { isRegistryImage, newId, normalizeRef, type DockerContainer, type PortBinding } from '../host/docker';
import { pull } from './docker-registry';
import { BufferOutput } from '../shell/io';
import type { CommandContext } from './types';

const BOOL = new Set(['d', 'detach', 'i', 'interactive', 't', 'tty', 'rm', 'privileged', 'init', 'read-only', 'P', 'publish-all', 'q', 'quiet', 'no-healthcheck', 'oom-kill-disable', 'sig-proxy']);
const VALUED = new Set([
  'p', 'publish', 'v', 'volume', 'name', 'restart', 'e', 'env', 'env-file', 'network', 'net', 'u', 'user', 'w', 'workdir', 'entrypoint',
  'log-driver', 'log-opt', 'add-host', 'mount', 'm', 'memory', 'cpus', 'hostname', 'h', 'label', 'l', 'dns', 'cap-add', 'cap-drop',
  'device', 'ulimit', 'shm-size', 'health-cmd', 'health-interval', 'health-retries', 'health-timeout', 'pull', 'platform', 'ip',
  'expose', 'tmpfs', 'security-opt', 'stop-signal', 'gpus', 'pid', 'ipc', 'uts', 'cidfile', 'memory-swap', 'volumes-from', 'link',
]);

interface RunOptions {
  opts: [string, string | true][];
  image: string;
  command: string[];
}

function parseRun(args: string[]): RunOptions | string {
  const opts: [string, string | true][] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      i++;
      break;
    }
    if (!a.startsWith('-') || a === '-') break;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const key = eq > 0 ? a.slice(2, eq) : a.slice(2);
      if (!BOOL.has(key) && !VALUED.has(key)) return `unknown flag: --${key}`;
      if (eq > 0) opts.push([key, a.slice(eq + 1)]);
      else if (VALUED.has(key)) opts.push([key, args[++i] ?? '']);
      else opts.push([key, true]);
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      const key = a[j];
      if (VALUED.has(key)) {
        opts.push([key, a.slice(j + 1) || (args[++i] ?? '')]);
        break;
      }
      if (!BOOL.has(key)) return `unknown shorthand flag: '${key}' in ${a}`;
      opts.push([key, true]);
    }
  }
  if (i >= args.length) return '"docker run" requires at least 1 argument.';
  return { opts, image: args[i], command: args.slice(i + 1) };
}

function parsePort(spec: string): PortBinding | undefined {
  const [mapping, proto = 'tcp'] = spec.split('/');
  const parts = mapping.split(':');
  const containerPort = Number(parts[parts.length - 1]);
  const hostPort = Number(parts.length >= 2 ? parts[parts.length - 2] : parts[0]);
  const hostIp = parts.length === 3 ? parts[0] : '';
  if (!Number.isInteger(containerPort) || !Number.isInteger(hostPort)) return undefined;
  return { hostIp, hostPort, containerPort, proto };
}

export async function dockerRun(ctx: CommandContext, args: string[], create: boolean): Promise<number> {
  const { docker, fs } = ctx.sh.host;
  const err = (text: string, code = 125) => {
    ctx.io.stderr.write(`docker: ${text}\nSee 'docker ${create ? 'create' : 'run'} --help'.\n`);
    return code;
  };
  const parsed = parseRun(args);
  if (typeof parsed === 'string') return err(parsed);
  const get = (...keys: string[]) => parsed.opts.filter(([k]) => keys.includes(k)).map(([, v]) => v);
  const last = (...keys: string[]) => get(...keys).pop();
  const name = (last('name') as string | undefined) ?? `sim_${newId().slice(0, 8)}`;
  const ports: PortBinding[] = [];
  for (const spec of get('p', 'publish') as string[]) {
    const port = parsePort(spec);
    if (!port) return err(`Invalid containerPort: ${spec}`);
    ports.push(port);
  }
  const conflict = docker.findContainer(name);
  if (conflict && conflict.name === name) {
    return err(`Error response from daemon: Conflict. The container name "/${name}" is already in use by container "${conflict.id}". You have to remove (or rename) that container to be able to reuse that name.`);
  }
  let image = docker.findImage(parsed.image);
  if (!image) {
    if (last('pull') === 'never') return err(`Error response from daemon: No such image: ${normalizeRef(parsed.image)}`);
    ctx.io.stderr.write(`Unable to find image '${normalizeRef(parsed.image)}' locally\n`);
    const pulled = new BufferOutput();
    const status = pull({ ...ctx, io: { ...ctx.io, stdout: pulled } }, parsed.image, false, ctx.io.stderr);
    if (status !== 0) return 125;
    image = docker.findImage(parsed.image)!;
  }
  // Bind mounts of host paths that do not exist yet are created by the daemon (as root).
  const volumes = get('v', 'volume') as string[];
  for (const v of volumes) {
    const src = v.split(':')[0];
    if (src.startsWith('/') && !fs.get(src)) fs.mkdir(src, { name: 'root', uid: 0, home: '/root' }, { parents: true, origin: 'package' });
  }
  const restart = ((last('restart') as string | undefined) ?? 'no').split(':')[0];
  const now = new Date().toISOString();
  const container: DockerContainer = {
    id: newId(),
    name,
    image: parsed.image,
    imageId: image.id,
    command: parsed.command.length ? parsed.command : isRegistryImage(parsed.image) ? ['/entrypoint.sh', '/etc/docker/registry/config.yml'] : ['/bin/sh'],
    ports,
    volumes,
    env: get('e', 'env') as string[],
    restart,
    state: 'created',
    exitCode: 0,
    stoppedByUser: false,
    created: now,
    startedAt: '0001-01-01T00:00:00Z',
    finishedAt: '',
  };
  docker.containers.push(container);
  if (create) {
    ctx.io.stdout.write(`${container.id}\n`);
    return 0;
  }
  const busy = ports.find((p) => docker.publishing(p.hostPort));
  if (busy) {
    return err(`Error response from daemon: driver failed programming external connectivity on endpoint ${name} (${newId().slice(0, 64)}): Bind for 0.0.0.0:${busy.hostPort} failed: port is already allocated.`);
  }
  docker.start(container);
  const detached = get('d', 'detach').length > 0;
  if (detached) {
    ctx.io.stdout.write(`${container.id}\n`);
    return 0;
  }
  // Attached: the simulated process finishes at once.
  docker.stop(container, true);
  if (get('rm').length > 0) docker.containers = docker.containers.filter((c) => c !== container);
  return 0;
}
