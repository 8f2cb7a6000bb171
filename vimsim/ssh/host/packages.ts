/**
 * What installing a package does to the host. Every package name installs
 * (the simulated mirror has everything); the Docker packages also bring their
 * dependencies, the docker group, /etc/docker and the running services.
 */
import type { SimHost } from './host';
import { startService, stopService } from './services';

const DOCKER_VERSION = '5:24.0.7-1~ubuntu.20.04~focal';

const DEPENDS: Record<string, string[]> = {
  'docker-ce': ['docker-ce-cli', 'containerd.io'],
  'docker.io': ['containerd', 'runc'],
};

const VERSIONS: Record<string, string> = {
  'docker-ce': DOCKER_VERSION,
  'docker-ce-cli': DOCKER_VERSION,
  'containerd.io': '1.6.26-1',
  'docker.io': '24.0.5-0ubuntu1~20.04.1',
  containerd: '1.7.2-0ubuntu1~20.04.1',
  runc: '1.1.7-0ubuntu1~20.04.2',
};

const ROOT = { name: 'root', uid: 0, home: '/root' };

export function dockerDaemonInstalled(host: SimHost): boolean {
  return host.isInstalled('docker-ce') || host.isInstalled('docker.io');
}

export function dockerCliInstalled(host: SimHost): boolean {
  return dockerDaemonInstalled(host) || host.isInstalled('docker-ce-cli');
}

/** Names as apt would install them (requested + missing dependencies), with versions. */
export function resolveInstall(host: SimHost, requested: string[]): { name: string; version: string }[] {
  const out: { name: string; version: string }[] = [];
  const visit = (spec: string) => {
    const [name, pinned] = spec.split('=');
    if (host.isInstalled(name) || out.some((p) => p.name === name)) return;
    for (const dep of DEPENDS[name] ?? []) visit(dep);
    out.push({ name, version: pinned ?? VERSIONS[name] ?? '1.0-1ubuntu1' });
  };
  requested.forEach(visit);
  return out;
}

export function install(host: SimHost, pkgs: { name: string; version: string }[]): void {
  const now = new Date().toISOString();
  for (const { name, version } of pkgs) host.packages.set(name, { name, version, base: false, installedAt: now });
  const names = pkgs.map((p) => p.name);
  if (names.some((n) => n === 'containerd.io' || n === 'containerd')) {
    host.services.set('containerd', { active: true, enabled: true, failed: false });
  }
  if (names.includes('docker-ce') || names.includes('docker.io')) {
    host.fs.mkdir('/etc/docker', ROOT, { parents: true, origin: 'package' });
    host.services.set('docker', { active: false, enabled: true, failed: false });
    startService(host, 'docker');
  }
}

export function remove(host: SimHost, names: string[]): string[] {
  const removed = names.filter((n) => host.packages.get(n)?.base === false);
  for (const name of removed) {
    host.packages.delete(name);
    if (name === 'docker-ce' || name === 'docker.io') {
      stopService(host, 'docker');
      host.services.delete('docker');
    }
  }
  return removed;
}
