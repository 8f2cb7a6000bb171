/**
 * `kubeadm reset`: stops the kubelet, removes the static pods' containers
 * (the real etcd and kube-apiserver stop), empties the etcd data directory,
 * /etc/kubernetes/manifests, /var/lib/kubelet and the certificates directory,
 * and deletes kubeadm's kubeconfig files. Without -f it asks, and an exec
 * channel has nobody to answer.
 */
import { stopService } from '../../ssh/host/services';
import { MANIFEST_DIR } from '../manifest';
import type { KubeadmIo } from './init';
import { PhaseError } from './certs';
import { KubeClient } from '../client';
import { credentialsFrom } from '../kubeconfig';
import { hostResolver } from '../resolve';
import { removeOwnEtcdMember } from './etcd-member';

const ROOT = { name: 'root', uid: 0, home: '/root' };
const ADMIN_CONF = '/etc/kubernetes/admin.conf';
const FILES = ['admin.conf', 'super-admin.conf', 'kubelet.conf', 'bootstrap-kubelet.conf', 'controller-manager.conf', 'scheduler.conf'].map((f) => `/etc/kubernetes/${f}`);

function emptyDir(io: KubeadmIo, dir: string): void {
  const memfs = io.host.fs;
  if (!memfs.isDir(dir)) return;
  for (const name of memfs.list(dir)) memfs.remove(`${dir}/${name}`, ROOT, { recursive: true });
}

export async function kubeadmReset(io: KubeadmIo, opts: { force: boolean; answer: () => Promise<string | null>; certificatesDir?: string }): Promise<void> {
  io.err("[reset] WARNING: Changes made to this host by 'kubeadm init' or 'kubeadm join' will be reverted.");
  if (!opts.force) {
    io.out('[reset] Are you sure you want to proceed? [y/N]: ');
    const answer = (await opts.answer())?.trim().toLowerCase();
    if (answer !== 'y' && answer !== 'yes') throw new PhaseError('preflight', "won't proceed; the user didn't answer (Y|y) in order to continue");
  }
  io.out('[preflight] Running pre-flight checks');
  const memfs = io.host.fs;
  const etcdDir = '/var/lib/etcd';
  if (memfs.isFile(`${MANIFEST_DIR}/etcd.yaml`) || memfs.isDir(etcdDir)) {
    io.out('[reset] No kubeadm config, using etcd pod spec to get data directory');
  }
  const certDir = opts.certificatesDir ?? '/etc/kubernetes/pki';
  if (memfs.isFile(`${MANIFEST_DIR}/etcd.yaml`) && memfs.isFile(ADMIN_CONF) && memfs.isFile(`${certDir}/apiserver-etcd-client.key`)) {
    // a stacked control plane leaves the etcd cluster first, so the others keep their quorum
    const api = new KubeClient(credentialsFrom(memfs, ADMIN_CONF), { resolve: hostResolver(io.host), timeoutMs: 5_000 });
    try {
      await removeOwnEtcdMember(memfs, certDir, io.host.address, api, io.out, io.err);
    } finally {
      api.close();
    }
  }
  io.out('[reset] Stopping the kubelet service');
  if (io.host.services.get('kubelet')) stopService(io.host, 'kubelet');
  await io.host.kube?.resetContainers();
  if (memfs.isDir(etcdDir)) {
    emptyDir(io, etcdDir);
    io.out(`[reset] Deleted contents of the etcd data directory: ${etcdDir}`);
  }
  io.out('[reset] Unmounting mounted directories in "/var/lib/kubelet"');
  const dirs = [MANIFEST_DIR, '/var/lib/kubelet', certDir];
  io.out(`[reset] Deleting contents of directories: [${dirs.join(' ')}]`);
  for (const d of dirs) emptyDir(io, d);
  io.out(`[reset] Deleting files: [${FILES.join(' ')}]`);
  for (const f of FILES) if (memfs.isFile(f)) memfs.remove(f, ROOT);
  io.out(`
The reset process does not perform cleanup of CNI plugin configuration,
network filtering rules and kubeconfig files.

For information on how to perform this cleanup manually, please see:
    https://k8s.io/docs/reference/setup-tools/kubeadm/kubeadm-reset/
`);
}
