/**
 * The Kubernetes packages of the pkgs.k8s.io repositories (one per minor:
 * https://pkgs.k8s.io/core:/stable:/v1.NN/deb/) and containerd's. Unlike the
 * rest of the simulated mirror, kubelet/kubeadm/kubectl exist only once such a
 * repository is in the sources and `apt-get update` read it (with its key);
 * each minor has the patch versions 0..latest, as `<v>-1.1`.
 */
import type { SimHost } from './host';

export const KUBE_PACKAGES = new Set(['kubelet', 'kubeadm', 'kubectl', 'cri-tools', 'kubernetes-cni']);
/** The latest patch release per minor in the simulated repositories. */
const LATEST_PATCH: Record<number, number> = { 28: 15, 29: 15, 30: 14, 31: 14, 32: 11, 33: 7, 34: 3, 35: 2, 36: 3, 37: 2 };
const TOOL_VERSIONS: Record<string, (minor: number) => string> = {
  'cri-tools': (minor) => `1.${minor}.0-1.1`,
  'kubernetes-cni': () => '1.7.1-1.1',
};
export const KUBE_DEPENDS: Record<string, string[]> = {
  kubelet: ['kubernetes-cni', 'conntrack', 'ebtables', 'socat'],
  kubeadm: ['cri-tools'],
  containerd: ['runc'],
};
const ROOT = { name: 'root', uid: 0, home: '/root' };

/** The minor of a pkgs.k8s.io source line ("deb [signed-by=...] https://pkgs.k8s.io/core:/stable:/v1.37/deb/ /"). */
export function kubeRepoMinor(line: string): number | undefined {
  const m = /https?:\/\/pkgs\.k8s\.io\/core:\/stable:\/v1\.(\d+)\/deb\/?/.exec(line);
  return m ? Number(m[1]) : undefined;
}

/** The Kubernetes version of an installed package ("1.36.3-1.1" → "v1.36.3"); undefined when it is not installed. */
export function installedKubeVersion(host: SimHost, name: string): string | undefined {
  const v = host.packages.get(name)?.version;
  return v ? `v${v.replace(/-.*$/, '')}` : undefined;
}

/** Versions apt can install of a Kubernetes package, newest first (none without the repository). */
export function kubeVersions(host: SimHost, name: string): string[] {
  const minors = [...new Set(host.aptLists.map(kubeRepoMinor).filter((m): m is number => m !== undefined && LATEST_PATCH[m] !== undefined))];
  const out: string[] = [];
  for (const minor of minors.sort((a, b) => b - a)) {
    if (TOOL_VERSIONS[name]) out.push(TOOL_VERSIONS[name](minor));
    else for (let patch = LATEST_PATCH[minor]; patch >= 0; patch--) out.push(`1.${minor}.${patch}-1.1`);
  }
  return [...new Set(out)];
}

const KUBELET_UNIT = `[Unit]
Description=kubelet: The Kubernetes Node Agent
Documentation=https://kubernetes.io/docs/
Wants=network-online.target
After=network-online.target

[Service]
ExecStart=/usr/bin/kubelet
Restart=always
StartLimitInterval=0
RestartSec=10

[Install]
WantedBy=multi-user.target
`;

const KUBEADM_DROPIN = `# Note: This dropin only works with kubeadm and kubelet v1.11+
[Service]
Environment="KUBELET_KUBECONFIG_ARGS=--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf"
Environment="KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml"
# This is a file that "kubeadm init" and "kubeadm join" generates at runtime, populating the KUBELET_KUBEADM_ARGS variable dynamically
EnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env
# This is a file that the user can use for overrides of the kubelet args as a last resort. Preferably, the user should use
# the .NodeRegistration.KubeletExtraArgs object in the configuration files instead. KUBELET_EXTRA_ARGS should be sourced from this file.
EnvironmentFile=-/etc/default/kubelet
ExecStart=
ExecStart=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS
`;

/** What a package puts on the disk and which units it brings (started, as Debian's postinst does). */
export function installPackageFiles(host: SimHost, name: string): void {
  const fs = host.fs;
  const file = (p: string, text: string, mode = 0o644) => {
    fs.mkdir(p.slice(0, p.lastIndexOf('/')), ROOT, { parents: true, origin: 'package' });
    fs.writeFile(p, text, ROOT, { origin: 'package', mode });
  };
  switch (name) {
    case 'kubelet':
      file('/usr/lib/systemd/system/kubelet.service', KUBELET_UNIT);
      fs.mkdir('/etc/kubernetes/manifests', ROOT, { parents: true, origin: 'package' });
      fs.mkdir('/var/lib/kubelet', ROOT, { parents: true, origin: 'package', mode: 0o700 });
      // enabled and started: it restarts every 10 s until kubeadm gives it a configuration; an
      // upgrade leaves the unit as it is (the running kubelet is the old one until it is restarted)
      if (!host.services.has('kubelet')) host.services.set('kubelet', { active: true, enabled: true, failed: false });
      break;
    case 'kubeadm':
      file('/usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf', KUBEADM_DROPIN);
      break;
    case 'containerd':
      fs.mkdir('/etc/containerd', ROOT, { parents: true, origin: 'package' });
      host.services.set('containerd', { active: true, enabled: true, failed: false });
      break;
    default:
      break;
  }
}

export function removePackageFiles(host: SimHost, name: string): void {
  if (name === 'kubelet') host.services.delete('kubelet');
  if (name === 'containerd' && !host.isInstalled('containerd.io')) host.services.delete('containerd');
}
