/**
 * kubeadm v1.37's preflight checks as they look on a simulated host, with
 * kubeadm's names and messages: the container runtime, swap (a warning since
 * v1.28: the kubelet itself refuses to start with swap on), the kubelet binary
 * and service, ports (6443/2379/2380 by really binding the host's own address;
 * 10250/10257/10259 from the simulated components), files and directories
 * that must not exist yet, and net.ipv4.ip_forward = 1. (v1.37 has no
 * bridge-nf-call-iptables check any more.)
 */
import net from 'node:net';
import type { SimHost } from '../../ssh/host/host';
import { readSysctl, swapOn } from '../../ssh/host/kernel';
import { MANIFEST_DIR } from '../manifest';
import { BOOTSTRAP_KUBECONFIG, KUBELET_KUBECONFIG } from '../node-parts';
import { PhaseError } from './certs';

interface Result { name: string; errors: string[]; warnings: string[] }
type Check = () => Promise<Result> | Result;

const ok = (name: string): Result => ({ name, errors: [], warnings: [] });
const error = (name: string, e: string): Result => ({ name, errors: [e], warnings: [] });
const warning = (name: string, w: string): Result => ({ name, errors: [], warnings: [w] });

const CRI_DOWN = 'rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial unix /run/containerd/containerd.sock: connect: no such file or directory"';

/** Whether a TCP port is free on the host's own address (really binding it). */
function portFree(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, address, () => srv.close(() => resolve(true)));
  });
}

function commonChecks(host: SimHost): Check[] {
  const criUp = () => Boolean(host.services.get('containerd')?.active);
  return [
    () => (criUp() ? ok('CRI') : error('CRI', `container runtime is not running: ${CRI_DOWN}`)),
    () => (criUp() ? ok('ContainerRuntimeVersion') : error('ContainerRuntimeVersion', `could not check if the runtime config is available: ${CRI_DOWN}`)),
    () => (swapOn(host) ? warning('Swap', 'swap is supported for cgroup v2 only. The kubelet must be properly configured to use swap. Please refer to https://kubernetes.io/docs/concepts/architecture/nodes/#swap-memory, or disable swap on the node') : ok('Swap')),
    () => (host.isInstalled('kubelet') ? ok('KubeletVersion') : error('KubeletVersion', `couldn't get kubelet version: cannot execute 'kubelet --version': executable file not found in $PATH`)),
    () => {
      const svc = host.services.get('kubelet');
      if (!svc) return warning('Service-Kubelet', 'kubelet service does not exist');
      return svc.enabled ? ok('Service-Kubelet') : warning('Service-Kubelet', "kubelet service is not enabled, please run 'systemctl enable kubelet.service'");
    },
    () => (host.kube?.kubeletRunning && host.kube.kubelet?.registered ? error('Port-10250', 'Port 10250 is in use') : ok('Port-10250')),
  ];
}

const fileAvailable = (host: SimHost, path: string): Check => () => {
  const name = `FileAvailable-${path.replace(/\//g, '-')}`;
  return host.fs.get(path) ? error(name, `${path} already exists`) : ok(name);
};

const ipForward = (host: SimHost): Check => () => {
  const name = 'FileContent--proc-sys-net-ipv4-ip_forward';
  const v = readSysctl(host, 'net.ipv4.ip_forward');
  if (v === undefined) return error(name, '/proc/sys/net/ipv4/ip_forward does not exist');
  return v.startsWith('1') ? ok(name) : error(name, '/proc/sys/net/ipv4/ip_forward contents are not set to 1');
};

const port = (host: SimHost, p: number): Check => async () => ((await portFree(host.address, p)) ? ok(`Port-${p}`) : error(`Port-${p}`, `Port ${p} is in use`));

/** What a control-plane instance needs free: its ports, manifests and etcd's data directory. */
function controlPlaneChecks(host: SimHost, bindPort: number, etcdDataDir: string): Check[] {
  return [
    port(host, bindPort),
    () => (host.kube?.pods.isRunning('kube-scheduler') ? error('Port-10259', 'Port 10259 is in use') : ok('Port-10259')),
    () => (host.kube?.pods.isRunning('kube-controller-manager') ? error('Port-10257', 'Port 10257 is in use') : ok('Port-10257')),
    ...['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'etcd'].map((n) => fileAvailable(host, `${MANIFEST_DIR}/${n}.yaml`)),
    port(host, 2379),
    port(host, 2380),
    () => {
      const name = `DirAvailable-${etcdDataDir.replace(/\//g, '-')}`;
      return host.fs.isDir(etcdDataDir) && host.fs.list(etcdDataDir).length > 0 ? error(name, `${etcdDataDir} is not empty`) : ok(name);
    },
  ];
}

export function initChecks(host: SimHost, bindPort: number, etcdDataDir: string): Check[] {
  return [...controlPlaneChecks(host, bindPort, etcdDataDir), ...commonChecks(host), ipForward(host)];
}

/** A control-plane join brings its own CA (downloaded or copied), so ca.crt may be there already. */
export function joinChecks(host: SimHost, caCertPath: string, controlPlane?: { bindPort: number; etcdDataDir: string }): Check[] {
  return [
    fileAvailable(host, KUBELET_KUBECONFIG), fileAvailable(host, BOOTSTRAP_KUBECONFIG), ...commonChecks(host),
    ...(controlPlane ? [] : [fileAvailable(host, caCertPath)]), ipForward(host),
    ...(controlPlane ? controlPlaneChecks(host, controlPlane.bindPort, controlPlane.etcdDataDir) : []),
  ];
}

/** Runs the checks as kubeadm's RunChecks does: warnings and errors on stderr, a PhaseError when any error is left. */
export async function runChecks(checks: Check[], ignore: string[], err: (l: string) => void): Promise<void> {
  const ignored = new Set(ignore.map((i) => i.toLowerCase()));
  const errors: string[] = [];
  for (const check of checks) {
    const r = await check();
    const demote = ignored.has('all') || ignored.has(r.name.toLowerCase());
    for (const w of [...r.warnings, ...(demote ? r.errors : [])]) err(`\t[WARNING ${r.name}]: ${w}`);
    if (!demote) for (const e of r.errors) errors.push(`\t[ERROR ${r.name}]: ${e}`);
  }
  if (errors.length > 0) {
    err(`[preflight] Some fatal errors occurred:\n${errors.join('\n')}\n[preflight] If you know what you are doing, you can make a check non-fatal with \`--ignore-preflight-errors=...\``);
    throw new PhaseError('preflight', 'preflight checks failed');
  }
}
