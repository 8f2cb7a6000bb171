/**
 * Which Kubernetes version changes an upgrade may ask for, as kubeadm allows
 * them: never down, and one minor version at a time (Kubernetes' version
 * skew policy); patch releases within a minor freely.
 */
const VERSION = /^v?(\d+)\.(\d+)\.(\d+)$/;

/** Why `current` cannot be upgraded to `target`, or undefined when kubeadm could do it. */
export function upgradePathProblem(currentVersion: string, targetVersion: string): string | undefined {
  const [current, target] = [currentVersion, targetVersion].map((v) => v.replace(/^v/, ''));
  const [a, b] = [VERSION.exec(current), VERSION.exec(target)].map((m) => m?.slice(1).map(Number));
  if (!a || !b) return `Kubernetes v${current} to v${target}: not both versions as MAJOR.MINOR.PATCH`;
  const order = a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
  if (order > 0) return `Downgrading Kubernetes from v${current} to v${target} is not supported: kubeadm upgrades only; create a cluster with the older version instead.`;
  if (b[0] !== a[0] || b[1] > a[1] + 1) {
    return `Upgrading Kubernetes from v${current} to v${target} skips a minor version: upgrade to a v${a[0]}.${a[1] + 1} template first (kubeadm upgrades one minor version at a time).`;
  }
  return undefined;
}
