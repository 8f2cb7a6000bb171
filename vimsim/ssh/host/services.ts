/**
 * systemd as far as drivers touch it: units start/stop/restart, and unit
 * files plus drop-ins are only seen after `daemon-reload` — a proxy drop-in
 * written without a reload is not applied, and systemctl warns about it.
 */
import type { SimHost, ServiceState } from './host';
import { isLbUnit, prepareLbUnit, type LbUnit } from '../../lb/units';

const UNIT_DIR = '/etc/systemd/system';

export function unitName(arg: string): string {
  return arg.replace(/\.(service|socket)$/, '');
}

/** Unit file and drop-ins of a unit as they are on disk now. */
function unitFilesOnDisk(host: SimHost, unit: string): Map<string, string> {
  const files = new Map<string, string>();
  const main = `${UNIT_DIR}/${unit}.service`;
  const mainNode = host.fs.get(main);
  if (mainNode?.kind === 'file') files.set(main, mainNode.data.toString('utf8'));
  const dropins = `${UNIT_DIR}/${unit}.service.d`;
  if (host.fs.isDir(dropins)) {
    for (const name of host.fs.list(dropins).filter((n) => n.endsWith('.conf'))) {
      const node = host.fs.get(`${dropins}/${name}`);
      if (node?.kind === 'file') files.set(`${dropins}/${name}`, node.data.toString('utf8'));
    }
  }
  return files;
}

export function daemonReload(host: SimHost): void {
  const loaded = new Map<string, string>();
  for (const unit of new Set([...host.services.keys(), 'docker', 'containerd'])) {
    for (const [p, text] of unitFilesOnDisk(host, unit)) loaded.set(p, text);
  }
  host.loadedUnits = loaded;
}

export function changedOnDisk(host: SimHost, unit: string): boolean {
  const onDisk = unitFilesOnDisk(host, unit);
  const loaded = [...host.loadedUnits].filter(([p]) => p.startsWith(`${UNIT_DIR}/${unit}.service`));
  if (loaded.length !== onDisk.size) return true;
  return loaded.some(([p, text]) => onDisk.get(p) !== text);
}

/** Environment= settings of a unit's loaded drop-ins (quoted "A=B" pairs or bare A=B). */
function loadedEnvironment(host: SimHost, unit: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [p, text] of host.loadedUnits) {
    if (!p.startsWith(`${UNIT_DIR}/${unit}.service`)) continue;
    for (const line of text.split('\n')) {
      const m = /^\s*Environment\s*=\s*(.*)$/.exec(line);
      if (!m) continue;
      for (const pair of m[1].match(/"[^"]*"|'[^']*'|\S+/g) ?? []) {
        const kv = pair.replace(/^["']|["']$/g, '');
        const eq = kv.indexOf('=');
        if (eq > 0) env[kv.slice(0, eq)] = kv.slice(eq + 1);
      }
    }
  }
  return env;
}

const JOB_FAILED = (unit: string) => `Job for ${unit}.service failed because the control process exited with error code.\nSee "systemctl status ${unit}.service" and "journalctl -xe" for details.`;

/** Starts a unit; returns an error text when it fails to start. */
export function startService(host: SimHost, unit: string): string | undefined {
  const svc = host.services.get(unit);
  if (!svc) return `Unit ${unit}.service not found.`;
  if (isLbUnit(unit)) return startLbService(host, unit, svc);
  const failure = unit === 'docker' ? startDocker(host) : unit === 'containerd' ? checkContainerdConfig(host) : undefined;
  if (failure) {
    svc.active = false;
    svc.failed = true;
    return failure;
  }
  svc.active = true;
  svc.failed = false;
  // a (re)started kubelet reads its kubeconfig and certificates afresh; containerd back means the kubelet can run
  if (unit === 'kubelet' || unit === 'containerd') host.kube?.sync(unit === 'kubelet');
  return undefined;
}

/** haproxy and keepalived (vimsim/lb): the config checked as their unit does, then the daemon started on the host. */
function startLbService(host: SimHost, unit: LbUnit, svc: ServiceState): string | undefined {
  const prepared = prepareLbUnit(host, unit);
  if ('skip' in prepared) {
    svc.active = false;
    svc.failed = false;
    return undefined;
  }
  if ('error' in prepared) {
    svc.active = false;
    svc.failed = true;
    return `${JOB_FAILED(unit)}\n${prepared.error}`;
  }
  svc.active = true;
  svc.failed = false;
  if (prepared.unit === 'haproxy') host.lb?.start('haproxy', prepared.config);
  else host.lb?.start('keepalived', prepared.config);
  return undefined;
}

/** After a start: how the part a daemon does in the background ended (haproxy binding its sockets); a failure text as systemd's. */
export async function settleService(host: SimHost, unit: string): Promise<string | undefined> {
  if (!isLbUnit(unit) || !host.lb) return undefined;
  const error = await host.lb.settled(unit);
  return error ? `${JOB_FAILED(unit)}\n${error}` : undefined;
}

/** `systemctl reload` of haproxy/keepalived: a config the daemon refuses fails the job and the running one keeps its old config. */
export function reloadService(host: SimHost, unit: LbUnit): string | undefined {
  const prepared = prepareLbUnit(host, unit);
  if ('error' in prepared) return `${JOB_FAILED(unit)}\n${prepared.error}`;
  if ('skip' in prepared) return undefined;
  if (prepared.unit === 'haproxy') host.lb?.reload('haproxy', prepared.config);
  else host.lb?.reload('keepalived', prepared.config);
  return undefined;
}

export function stopService(host: SimHost, unit: string): void {
  const svc = host.services.get(unit);
  if (!svc) return;
  if (isLbUnit(unit)) void host.lb?.stop(unit);
  if (unit === 'docker' && svc.active) host.docker.stopAll();
  svc.active = false;
  if (unit === 'kubelet' || unit === 'containerd') host.kube?.sync();
}

/** systemd's ActiveState: a kubelet that cannot start is restarted every 10 s ("activating"). */
export function activeState(host: SimHost, unit: string): 'active' | 'inactive' | 'failed' | 'activating' {
  const svc = host.services.get(unit);
  if (!svc) return 'inactive';
  if (svc.failed) return 'failed';
  if (!svc.active) return 'inactive';
  if (unit === 'kubelet' && host.kube?.problem()) return 'activating';
  return 'active';
}

/**
 * containerd refuses a config.toml it cannot parse (a light TOML check: tables,
 * key = value lines, multi-line arrays and inline tables balanced).
 */
function checkContainerdConfig(host: SimHost): string | undefined {
  const node = host.fs.get('/etc/containerd/config.toml');
  if (node?.kind !== 'file') return undefined;
  let depth = 0;
  const lines = node.data.toString('utf8').split('\n');
  for (const [i, raw] of lines.entries()) {
    const line = raw.replace(/\s+#.*$/, '').trim();
    if (line === '' || line.startsWith('#')) continue;
    const ok = depth > 0 || /^\[\[?[^\]]+\]\]?$/.test(line) || /^("[^"]*"|'[^']*'|[A-Za-z0-9_.-]+)(\s*\.\s*("[^"]*"|[A-Za-z0-9_-]+))*\s*=\s*\S/.test(line);
    if (!ok) return `${JOB_FAILED('containerd')}\n(containerd: failed to load TOML: /etc/containerd/config.toml: (${i + 1}, 1): parsing error: expected key = value)`;
    const unquoted = line.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, '""');
    depth += (unquoted.match(/[[{]/g) ?? []).length - (unquoted.match(/[\]}]/g) ?? []).length;
  }
  if (depth !== 0) return `${JOB_FAILED('containerd')}\n(containerd: failed to load TOML: /etc/containerd/config.toml: unexpected end of file)`;
  return undefined;
}

function startDocker(host: SimHost): string | undefined {
  const node = host.fs.get('/etc/docker/daemon.json');
  let config: Record<string, unknown> = {};
  if (node?.kind === 'file' && node.data.length > 0) {
    try {
      config = JSON.parse(node.data.toString('utf8')) as Record<string, unknown>;
    } catch {
      return 'Job for docker.service failed because the control process exited with error code.\nSee "systemctl status docker.service" and "journalctl -xe" for details.';
    }
  }
  const insecure = config['insecure-registries'];
  host.docker.insecureRegistries = Array.isArray(insecure) ? insecure.map(String) : [];
  const execOpts = Array.isArray(config['exec-opts']) ? config['exec-opts'].map(String) : [];
  host.docker.cgroupDriver = execOpts.find((o) => o.startsWith('native.cgroupdriver='))?.split('=')[1] ?? 'cgroupfs';
  host.docker.proxyEnv = loadedEnvironment(host, 'docker');
  host.docker.startAll();
  return undefined;
}
