/**
 * What installing a package does to the host. Every package name installs
 * (the simulated mirror has everything); the Docker packages also bring their
 * dependencies, the docker group, /etc/docker and the running services.
 */
import type { SimHost } from './host';
import { installPackageFiles, KUBE_DEPENDS, KUBE_PACKAGES, kubeVersions, removePackageFiles } from './kube-packages';
import { installLbPackage, LB_VERSIONS, removeLbPackage } from './lb-packages';
import { startService, stopService } from './services';

const DOCKER_VERSION = '5:24.0.7-1~ubuntu.20.04~focal';

const DEPENDS: Record<string, string[]> = {
  'docker-ce': ['docker-ce-cli', 'containerd.io'],
  'docker.io': ['containerd', 'runc'],
  ...KUBE_DEPENDS,
};

const VERSIONS: Record<string, string> = {
  'docker-ce': DOCKER_VERSION,
  'docker-ce-cli': DOCKER_VERSION,
  'containerd.io': '1.6.26-1',
  'docker.io': '24.0.5-0ubuntu1~20.04.1',
  containerd: '1.7.24-0ubuntu1~20.04.2',
  runc: '1.1.7-0ubuntu1~20.04.2',
  ...LB_VERSIONS,
};

const ROOT = { name: 'root', uid: 0, home: '/root' };

export function dockerDaemonInstalled(host: SimHost): boolean {
  return host.isInstalled('docker-ce') || host.isInstalled('docker.io');
}

export function dockerCliInstalled(host: SimHost): boolean {
  return dockerDaemonInstalled(host) || host.isInstalled('docker-ce-cli');
}

/** apt's error for a package (name or name=version) it cannot install, as `E: ...`; undefined when it can. */
export function locate(host: SimHost, spec: string): string | undefined {
  const [name, pinned] = spec.split('=');
  if (!KUBE_PACKAGES.has(name)) return undefined;
  const versions = kubeVersions(host, name);
  if (versions.length === 0) return `E: Unable to locate package ${name}`;
  if (pinned && !versions.includes(pinned)) return `E: Version '${pinned}' for '${name}' was not found`;
  return undefined;
}

/** The version `apt-get install name` would pick. */
export function candidate(host: SimHost, name: string): string | undefined {
  if (KUBE_PACKAGES.has(name)) return kubeVersions(host, name)[0];
  return VERSIONS[name] ?? '1.0-1ubuntu1';
}

/** Names as apt would install them (requested + missing dependencies), with versions; a pin of an installed package other than its version reinstalls it. */
export function resolveInstall(host: SimHost, requested: string[]): { name: string; version: string }[] {
  const out: { name: string; version: string }[] = [];
  const visit = (spec: string) => {
    const [name, pinned] = spec.split('=');
    const installed = host.packages.get(name);
    if ((installed && (!pinned || installed.version === pinned)) || out.some((p) => p.name === name)) return;
    for (const dep of DEPENDS[name] ?? []) visit(dep);
    out.push({ name, version: pinned ?? candidate(host, name) ?? '1.0-1ubuntu1' });
  };
  requested.forEach(visit);
  return out;
}

export function install(host: SimHost, pkgs: { name: string; version: string }[]): void {
  const now = new Date().toISOString();
  for (const { name, version } of pkgs) {
    host.packages.set(name, { name, version, base: false, installedAt: now });
    installPackageFiles(host, name);
  }
  const names = pkgs.map((p) => p.name);
  if (names.some((n) => n === 'containerd.io' || n === 'containerd')) {
    host.services.set('containerd', { active: true, enabled: true, failed: false });
  }
  if (names.includes('docker-ce') || names.includes('docker.io')) {
    host.fs.mkdir('/etc/docker', ROOT, { parents: true, origin: 'package' });
    host.services.set('docker', { active: false, enabled: true, failed: false });
    startService(host, 'docker');
  }
  if (names.some((n) => n === 'kubelet' || n.startsWith('containerd'))) host.kube?.sync();
  // haproxy starts as its postinst starts it; keepalived's start waits for a config (lb-packages.ts)
  for (const n of names) installLbPackage(host, n);
}

export function remove(host: SimHost, names: string[]): string[] {
  const removed = names.filter((n) => host.packages.get(n)?.base === false);
  for (const name of removed) {
    host.packages.delete(name);
    removePackageFiles(host, name);
    removeLbPackage(host, name);
    if (name === 'docker-ce' || name === 'docker.io') {
      stopService(host, 'docker');
      host.services.delete('docker');
    }
  }
  return removed;
}
