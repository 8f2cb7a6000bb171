/**
 * The kernel state kubeadm and the kubelet look at: swap (/proc/swaps; the
 * image has a swap file in /etc/fstab, as a server install does, so a missing
 * `swapoff -a` shows), loaded modules (br_netfilter brings the
 * net.bridge.* sysctls), and sysctls as files under /proc/sys. A boot (power
 * on after a stop) starts from the defaults and applies what the disk says:
 * fstab swap, /etc/modules-load.d, /etc/sysctl.d.
 */
import path from 'node:path/posix';
import type { SimHost } from './host';

const ROOT = { name: 'root', uid: 0, home: '/root' };
export const SWAP_FILE = '/swap.img';
const SWAPS_HEADER = 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n';

/** Modules the simulated kernel has (all loadable; a few loaded at boot). */
const AVAILABLE_MODULES = new Set([
  'overlay', 'br_netfilter', 'bridge', 'ip_vs', 'ip_vs_rr', 'ip_vs_wrr', 'ip_vs_sh', 'nf_conntrack', 'ip_tables', 'ip6_tables',
  'iptable_nat', 'iptable_filter', 'xt_conntrack', 'xt_MASQUERADE', 'nf_nat', 'vxlan', 'veth', 'dummy', 'rbd', 'nbd', 'iscsi_tcp',
]);
const BOOT_MODULES = ['ip_tables', 'x_tables'];

export const SYSCTL_DEFAULTS: Record<string, string> = {
  'net.ipv4.ip_forward': '0',
  // keepalived setups set it to 1 so haproxy can bind a VIP the host does not hold yet
  'net.ipv4.ip_nonlocal_bind': '0',
  'net.ipv4.conf.all.forwarding': '0',
  'net.ipv4.conf.default.forwarding': '0',
  'net.ipv4.conf.all.rp_filter': '2',
  'net.ipv4.ip_local_port_range': '32768\t60999',
  'net.ipv6.conf.all.forwarding': '0',
  'net.ipv6.conf.default.forwarding': '0',
  'net.ipv6.conf.all.disable_ipv6': '0',
  'net.core.somaxconn': '4096',
  'net.netfilter.nf_conntrack_max': '262144',
  'vm.swappiness': '60',
  'vm.overcommit_memory': '0',
  'vm.max_map_count': '65530',
  'kernel.panic': '0',
  'kernel.panic_on_oops': '1',
  'kernel.pid_max': '4194304',
  'fs.inotify.max_user_watches': '8192',
  'fs.inotify.max_user_instances': '128',
  'fs.file-max': '9223372036854775807',
};
const BRIDGE_SYSCTLS = ['net.bridge.bridge-nf-call-iptables', 'net.bridge.bridge-nf-call-ip6tables', 'net.bridge.bridge-nf-call-arptables'];

export function sysctlPath(key: string): string {
  return `/proc/sys/${key.replace(/\./g, '/')}`;
}

function setSysctlFile(host: SimHost, key: string, value: string): void {
  const p = sysctlPath(key);
  host.fs.mkdir(path.dirname(p), ROOT, { parents: true, origin: 'image' });
  host.fs.writeFile(p, `${value}\n`, ROOT, { origin: 'image' });
}

export function swapOn(host: SimHost): boolean {
  const node = host.fs.get('/proc/swaps');
  return node?.kind === 'file' && node.data.toString('utf8').split('\n').filter(Boolean).length > 1;
}

export function setSwap(host: SimHost, on: boolean): void {
  const line = `${SWAP_FILE.padEnd(40)}file\t\t2097148\t\t0\t\t-2\n`;
  host.fs.writeFile('/proc/swaps', SWAPS_HEADER + (on ? line : ''), ROOT, { origin: 'image' });
}

/** Swap devices fstab names without a comment (what `swapon -a` turns on). */
export function fstabSwaps(host: SimHost): string[] {
  const node = host.fs.get('/etc/fstab');
  if (node?.kind !== 'file') return [];
  return node.data.toString('utf8').split('\n').filter((l) => !/^\s*#/.test(l)).map((l) => l.trim().split(/\s+/)).filter((f) => f[2] === 'swap').map((f) => f[0]);
}

/** Loads a module; returns modprobe's error text when it cannot. */
export function loadModule(host: SimHost, name: string): string | undefined {
  const mod = name.replace(/-/g, '_');
  if (!AVAILABLE_MODULES.has(mod)) return `modprobe: FATAL: Module ${name} not found in directory /lib/modules/5.4.0-169-generic`;
  if (host.kernel.modules.has(mod)) return undefined;
  host.kernel.modules.add(mod);
  if (mod === 'br_netfilter') {
    host.kernel.modules.add('bridge');
    for (const key of BRIDGE_SYSCTLS) setSysctlFile(host, key, '1');
  }
  return undefined;
}

export function readSysctl(host: SimHost, key: string): string | undefined {
  const node = host.fs.get(sysctlPath(key));
  return node?.kind === 'file' ? node.data.toString('utf8').replace(/\n$/, '') : undefined;
}

/** Sets a sysctl that exists; false when the kernel has no such key. */
export function writeSysctl(host: SimHost, key: string, value: string): boolean {
  if (readSysctl(host, key) === undefined) return false;
  setSysctlFile(host, key, value);
  return true;
}

/** `key = value` lines of sysctl.d-style files, in the order `sysctl --system` applies them. */
export function sysctlFiles(host: SimHost): string[] {
  const dirs = ['/etc/sysctl.d', '/run/sysctl.d', '/usr/local/lib/sysctl.d', '/usr/lib/sysctl.d', '/lib/sysctl.d'];
  const byName = new Map<string, string>();
  for (const dir of [...dirs].reverse()) {
    if (!host.fs.isDir(dir)) continue;
    for (const name of host.fs.list(dir).filter((n) => n.endsWith('.conf'))) byName.set(name, `${dir}/${name}`);
  }
  const files = [...byName.keys()].sort().map((n) => byName.get(n)!);
  if (host.fs.isFile('/etc/sysctl.conf')) files.push('/etc/sysctl.conf');
  return files;
}

export function parseSysctlFile(text: string): [string, string][] {
  return text.split('\n').map((l) => l.trim()).filter((l) => l && !/^[#;]/.test(l) && l.includes('=')).map((l) => {
    const eq = l.indexOf('=');
    return [l.slice(0, eq).trim().replace(/^-/, '').replace(/\//g, '.'), l.slice(eq + 1).trim()];
  });
}

function modulesLoadD(host: SimHost): string[] {
  const out: string[] = [];
  for (const dir of ['/etc/modules-load.d', '/usr/lib/modules-load.d']) {
    if (!host.fs.isDir(dir)) continue;
    for (const name of host.fs.list(dir).filter((n) => n.endsWith('.conf'))) {
      out.push(...host.fs.readFile(`${dir}/${name}`, ROOT).toString('utf8').split('\n').map((l) => l.trim()).filter((l) => l && !/^[#;]/.test(l)));
    }
  }
  return out;
}

/** A fresh kernel: defaults, boot modules, then what the disk configures. */
export function bootKernel(host: SimHost): void {
  if (host.fs.isDir('/proc/sys')) host.fs.remove('/proc/sys', ROOT, { recursive: true });
  host.kernel.modules.clear();
  for (const [key, value] of Object.entries(SYSCTL_DEFAULTS)) setSysctlFile(host, key, value);
  for (const m of BOOT_MODULES) host.kernel.modules.add(m);
  for (const m of modulesLoadD(host)) loadModule(host, m);
  for (const file of sysctlFiles(host)) {
    for (const [key, value] of parseSysctlFile(host.fs.readFile(file, ROOT).toString('utf8'))) writeSysctl(host, key, value);
  }
  setSwap(host, fstabSwaps(host).length > 0);
}
