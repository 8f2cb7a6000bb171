/**
 * The Docker daemon of a simulated host: images, containers, registry
 * contents, and the daemon configuration it loaded when it last started.
 * The CLI that drives it is commands/docker.ts.
 */
import { createHash, randomBytes } from 'node:crypto';

export interface DockerImage {
  id: string;
  repoTags: string[];
  size: number;
  created: string;
  source: 'pull' | 'load' | 'tag' | 'build';
}

export interface PortBinding {
  hostIp: string;
  hostPort: number;
  containerPort: number;
  proto: string;
}

export interface DockerContainer {
  id: string;
  name: string;
  image: string;
  imageId: string;
  command: string[];
  ports: PortBinding[];
  volumes: string[];
  env: string[];
  restart: string;
  state: 'created' | 'running' | 'exited';
  exitCode: number;
  /** Stopped by `docker stop`: the daemon's restart policy leaves it alone (unless-stopped). */
  stoppedByUser: boolean;
  created: string;
  startedAt: string;
  finishedAt: string;
}

/** "registry" -> "registry:latest"; Docker Hub prefixes dropped, as the CLI shows them. */
export function normalizeRef(ref: string): string {
  let r = ref.replace(/^docker\.io\/library\//, '').replace(/^docker\.io\//, '').replace(/^index\.docker\.io\/library\//, '');
  if (r.includes('@')) return r;
  const slash = r.lastIndexOf('/');
  if (!r.slice(slash + 1).includes(':')) r += ':latest';
  return r;
}

export function splitRef(ref: string): { repository: string; tag: string } {
  const r = normalizeRef(ref);
  const colon = r.lastIndexOf(':');
  return { repository: r.slice(0, colon), tag: r.slice(colon + 1) };
}

/** "127.20.0.2:5000/app:1" -> {registry: "127.20.0.2:5000", path: "app:1"}; undefined for Docker Hub. */
export function registryOf(ref: string): { registry: string; path: string } | undefined {
  const slash = ref.indexOf('/');
  if (slash < 0) return undefined;
  const first = ref.slice(0, slash);
  if (!/[.:]/.test(first) && first !== 'localhost') return undefined;
  if (first === 'docker.io' || first === 'index.docker.io') return undefined;
  return { registry: first, path: normalizeRef(ref.slice(slash + 1)) };
}

/** A container of the Docker registry image answers the registry HTTP API on its port 5000. */
export function isRegistryImage(ref: string): boolean {
  const repo = splitRef(ref).repository.split('/').pop() ?? '';
  return repo === 'registry' || repo.includes('registry') || repo === 'distribution';
}

export function newId(seed?: string): string {
  return seed ? createHash('sha256').update(seed).digest('hex') : randomBytes(32).toString('hex');
}

export class DockerEngine {
  images: DockerImage[] = [];
  containers: DockerContainer[] = [];
  /** From /etc/docker/daemon.json when the daemon last started. */
  insecureRegistries: string[] = [];
  /** exec-opts native.cgroupdriver from daemon.json. */
  cgroupDriver = 'cgroupfs';
  /** From the docker.service drop-ins systemd had loaded when the daemon last started. */
  proxyEnv: Record<string, string> = {};
  loggedIn = new Set<string>();
  /** Images pushed to registry containers, by storage key (host volume path, else container id). */
  private readonly registries = new Map<string, Set<string>>();

  findImage(ref: string): DockerImage | undefined {
    const norm = normalizeRef(ref);
    const byId = ref.replace(/^sha256:/, '');
    return this.images.find((i) => i.repoTags.includes(norm) || (byId.length >= 4 && i.id.startsWith(byId)));
  }

  addImage(ref: string, source: DockerImage['source'], size: number, id = newId(normalizeRef(ref))): DockerImage {
    const tag = normalizeRef(ref);
    for (const other of this.images) other.repoTags = other.repoTags.filter((t) => t !== tag);
    let image = this.images.find((i) => i.id === id);
    if (!image) {
      image = { id, repoTags: [], size, created: new Date().toISOString(), source };
      this.images.push(image);
    }
    image.repoTags.push(tag);
    return image;
  }

  findContainer(nameOrId: string): DockerContainer | undefined {
    const name = nameOrId.replace(/^\//, '');
    return (
      this.containers.find((c) => c.name === name) ??
      (name.length >= 3 ? this.containers.find((c) => c.id.startsWith(name)) : undefined)
    );
  }

  /** The running container publishing a host port, if any. */
  publishing(port: number): DockerContainer | undefined {
    return this.containers.find((c) => c.state === 'running' && c.ports.some((p) => p.hostPort === port));
  }

  /** Storage of a registry container: its /var/lib/registry volume survives the container. */
  registryStore(container: DockerContainer): Set<string> {
    const volume = container.volumes.map((v) => v.split(':')).find((v) => v[1] === '/var/lib/registry');
    const key = volume ? `volume:${volume[0]}` : `container:${container.id}`;
    let store = this.registries.get(key);
    if (!store) this.registries.set(key, (store = new Set()));
    return store;
  }

  /** The daemon stops: every container stops. */
  stopAll(): void {
    for (const c of this.containers) if (c.state === 'running') this.stop(c, false);
  }

  /** The daemon starts: containers come back according to their restart policy. */
  startAll(): void {
    for (const c of this.containers) {
      if (c.restart === 'always' || (c.restart === 'unless-stopped' && !c.stoppedByUser)) this.start(c);
    }
  }

  start(c: DockerContainer): void {
    c.state = 'running';
    c.exitCode = 0;
    c.stoppedByUser = false;
    c.startedAt = new Date().toISOString();
  }

  stop(c: DockerContainer, byUser: boolean): void {
    c.state = 'exited';
    c.exitCode = byUser ? 0 : 255;
    c.stoppedByUser = byUser;
    c.finishedAt = new Date().toISOString();
  }
}
