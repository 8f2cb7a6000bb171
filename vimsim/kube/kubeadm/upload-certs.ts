/**
 * kubeadm's `upload-certs` and `download-certs`: the cluster's CAs and the
 * service-account keys travel to a joining control-plane node in the Secret
 * kube-system/kubeadm-certs, each file AES-256-GCM encrypted with the
 * certificate key (nonce first, as kubeadm's cryptoutil does). The Secret is
 * owned by a 2-hour bootstrap token, and only the bootstrap tokens' group may
 * read it (Role kubeadm:kubeadm-certs).
 */
import { createCipheriv, createDecipheriv, randomBytes, type CipherGCMTypes } from 'node:crypto';
import type { MemFs } from '../../ssh/host/fs';
import { isNotFound, type KubeClient } from '../client';
import { BOOTSTRAP_GROUP, randomToken, tokenSecret } from './bootstrap';
import { PhaseError } from './certs';

const ROOT = { name: 'root', uid: 0, home: '/root' };
const SECRET = 'kubeadm-certs';
const RBAC = 'rbac.authorization.k8s.io';
const FILES = ['ca.crt', 'ca.key', 'sa.key', 'sa.pub', 'front-proxy-ca.crt', 'front-proxy-ca.key', 'etcd/ca.crt', 'etcd/ca.key'];
const secretName = (file: string) => file.replace(/\//g, '-');

/** A new certificate key: 32 random bytes, hex. */
export function newCertificateKey(): string {
  return randomBytes(32).toString('hex');
}

function keyBytes(hex: string): Buffer {
  const key = /^[0-9a-fA-F]*$/.test(hex) ? Buffer.from(hex, 'hex') : Buffer.alloc(0);
  if (![16, 24, 32].includes(key.length) || key.length * 2 !== hex.length) throw new PhaseError('upload-certs', `error decoding certificate key: crypto/aes: invalid key size ${Math.floor(hex.length / 2)}`);
  return key;
}

function encrypt(data: Buffer, key: Buffer): Buffer {
  const nonce = randomBytes(12);
  const cipher = createCipheriv(`aes-${key.length * 8}-gcm` as CipherGCMTypes, key, nonce);
  return Buffer.concat([nonce, cipher.update(data), cipher.final(), cipher.getAuthTag()]);
}

function decrypt(sealed: Buffer, key: Buffer): Buffer {
  if (sealed.length < 28) throw new Error('size of data is less than the nonce');
  const decipher = createDecipheriv(`aes-${key.length * 8}-gcm` as CipherGCMTypes, key, sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
  } catch {
    throw new Error('cipher: message authentication failed');
  }
}

/** Stores the certificate directory's CAs and keys, encrypted, in kube-system/kubeadm-certs. */
export async function uploadCerts(client: KubeClient, memfs: MemFs, certDir: string, certificateKey: string, out: (l: string) => void): Promise<void> {
  const key = keyBytes(certificateKey);
  out(`[upload-certs] Storing the certificates in Secret "${SECRET}" in the "kube-system" Namespace`);
  const data: Record<string, string> = {};
  for (const f of FILES) {
    const p = `${certDir}/${f}`;
    if (!memfs.isFile(p)) throw new PhaseError('upload-certs', `error uploading certs: open ${p}: no such file or directory`);
    data[secretName(f)] = encrypt(memfs.readFile(p, ROOT), key).toString('base64');
  }
  // the Secret goes with a short-lived token, as kubeadm's does (its TTL is the Secret's)
  const token = tokenSecret({ token: randomToken(), ttl: '2h', description: 'Proxy for managing TTL for the kubeadm-certs secret', usages: [], groups: [] });
  const owner = await client.post<{ metadata: { name: string; uid: string } }>('/api/v1/namespaces/kube-system/secrets', token);
  await client.apply('/api/v1/namespaces/kube-system/secrets', {
    apiVersion: 'v1', kind: 'Secret', type: 'Opaque', data,
    metadata: { name: SECRET, namespace: 'kube-system', ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: owner.metadata.name, uid: owner.metadata.uid, blockOwnerDeletion: true, controller: true }] },
  });
  await client.apply(`/apis/${RBAC}/v1/namespaces/kube-system/roles`, { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'kubeadm:kubeadm-certs', namespace: 'kube-system' }, rules: [{ apiGroups: [''], resources: ['secrets'], resourceNames: [SECRET], verbs: ['get'] }] });
  await client.apply(`/apis/${RBAC}/v1/namespaces/kube-system/rolebindings`, { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: 'kubeadm:kubeadm-certs', namespace: 'kube-system' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'kubeadm:kubeadm-certs' }, subjects: [{ apiGroup: RBAC, kind: 'Group', name: BOOTSTRAP_GROUP }] });
  out('[upload-certs] Using certificate key:');
  out(certificateKey);
}

/** Reads kube-system/kubeadm-certs (with the bootstrap token) and writes the files it holds into the certificate directory. */
export async function downloadCerts(client: KubeClient, memfs: MemFs, certDir: string, certificateKey: string, out: (l: string) => void): Promise<void> {
  out(`[download-certs] Downloading the certificates in Secret "${SECRET}" in the "kube-system" Namespace`);
  const key = keyBytes(certificateKey);
  let secret: { data?: Record<string, string> };
  try {
    secret = await client.get(`/api/v1/namespaces/kube-system/secrets/${SECRET}`);
  } catch (err) {
    const why = isNotFound(err) ? `Secret "${SECRET}" was not found in the "kube-system" Namespace. This Secret might have expired. Please, run \`kubeadm init phase upload-certs --upload-certs\` on a control plane to generate a new one` : (err as Error).message;
    throw new PhaseError('control-plane-prepare/download-certs', `error downloading certs: error downloading the secret: ${why}`);
  }
  const files = new Map<string, Buffer>();
  for (const f of FILES) {
    const sealed = secret.data?.[secretName(f)];
    if (sealed === undefined) throw new PhaseError('control-plane-prepare/download-certs', `error downloading certs: the Secret does not include the required certificate or key - name: ${secretName(f)}`);
    try {
      files.set(f, decrypt(Buffer.from(sealed, 'base64'), key));
    } catch (err) {
      throw new PhaseError('control-plane-prepare/download-certs', `error downloading certs: error decoding secret data with provided key: ${(err as Error).message}`);
    }
  }
  for (const [f, bytes] of files) {
    const p = `${certDir}/${f}`;
    memfs.mkdir(p.slice(0, p.lastIndexOf('/')), ROOT, { parents: true });
    const mode = f.endsWith('.key') ? 0o600 : 0o644;
    memfs.writeFile(p, bytes, ROOT, { mode });
    memfs.chmod(p, mode, ROOT);
  }
}
