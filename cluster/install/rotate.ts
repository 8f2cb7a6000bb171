/**
 * CA rotation on one node (docs/cluster-engine.md §2): a master gets the new
 * CAs and service-account keys, kubeadm makes its leaf certificates and
 * kubeconfigs again from them, and its control plane and kubelet restart; a
 * worker gets the new CA and a kubelet kubeconfig with a client certificate
 * from the new CA, and its kubelet restarts. Re-run, each does the same
 * again (the files are the same files).
 */
import type { SshSession } from '../../ssh';
import { KUBEADM_INIT_CONFIG, kubeadmInitConfig, type InitConfigInput } from './files';
import { placePki, type PkiFile } from './control-plane';
import { writeFile } from './steps';

const MIN = 60_000;
const MANIFESTS = '/etc/kubernetes/manifests';
const PARKED = '/etc/kubernetes/manifests-rotating';

/** Leaf certificates and kubeconfigs kubeadm made from the old CAs. */
const OLD_LEAVES = [
  'apiserver.crt', 'apiserver.key', 'apiserver-kubelet-client.crt', 'apiserver-kubelet-client.key', 'apiserver-etcd-client.crt', 'apiserver-etcd-client.key',
  'front-proxy-client.crt', 'front-proxy-client.key', 'etcd/server.crt', 'etcd/server.key', 'etcd/peer.crt', 'etcd/peer.key',
  'etcd/healthcheck-client.crt', 'etcd/healthcheck-client.key',
].map((f) => `/etc/kubernetes/pki/${f}`);
const KUBECONFIGS = ['admin.conf', 'super-admin.conf', 'controller-manager.conf', 'scheduler.conf', 'kubelet.conf'].map((f) => `/etc/kubernetes/${f}`);

export interface ControlPlaneRestart {
  /** Resolves once the API no longer answers (the old processes stopped). */
  apiDown(): Promise<void>;
}

export async function rotateMaster(s: SshSession, c: InitConfigInput, pki: PkiFile[], restart: ControlPlaneRestart): Promise<void> {
  await placePki(s, pki);
  await s.run(`rm -f ${[...OLD_LEAVES, ...KUBECONFIGS].join(' ')} /var/lib/kubelet/pki/kubelet-client-*`, { sudo: true, timeoutMs: MIN });
  await writeFile(s, KUBEADM_INIT_CONFIG, kubeadmInitConfig(c), '600');
  await s.run(`kubeadm init phase certs all --config ${KUBEADM_INIT_CONFIG}`, { sudo: true, timeoutMs: 5 * MIN });
  await s.run(`kubeadm init phase kubeconfig all --config ${KUBEADM_INIT_CONFIG}`, { sudo: true, timeoutMs: 5 * MIN });
  // the static pods restart with the new files: their manifests leave until the API is down, then come back
  await s.run(`mkdir -p ${PARKED} && if ls ${MANIFESTS}/*.yaml >/dev/null 2>&1; then mv ${MANIFESTS}/*.yaml ${PARKED}/; fi`, { sudo: true, timeoutMs: MIN });
  await restart.apiDown();
  await s.run(`mv ${PARKED}/*.yaml ${MANIFESTS}/ && rmdir ${PARKED}`, { sudo: true, timeoutMs: MIN });
  await s.run('systemctl restart kubelet', { sudo: true, timeoutMs: 3 * MIN });
}

/** A worker's kubelet with the new CA and a client certificate (kubelet.conf embeds both). */
export async function rotateWorker(s: SshSession, caPem: string, kubeletConf: string): Promise<void> {
  await writeFile(s, '/etc/kubernetes/pki/ca.crt', caPem);
  await writeFile(s, '/etc/kubernetes/kubelet.conf', kubeletConf, '600');
  await s.run('rm -f /var/lib/kubelet/pki/kubelet-client-*', { sudo: true, timeoutMs: MIN });
  await s.run('systemctl restart kubelet', { sudo: true, timeoutMs: 3 * MIN });
}
