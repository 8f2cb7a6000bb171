/**
 * kubeadm's CA pin (`discovery.bootstrapToken.caCertHashes`, the
 * `--discovery-token-ca-cert-hash` of a join command): "sha256:" and the hex
 * SHA-256 of the CA certificate's DER SubjectPublicKeyInfo.
 */
import nodeCrypto from 'node:crypto';
import { parseCertificate } from './ca';

export function caCertHash(caPem: string): string {
  const spki = Buffer.from(parseCertificate(caPem).publicKey.rawData);
  return `sha256:${nodeCrypto.createHash('sha256').update(spki).digest('hex')}`;
}
