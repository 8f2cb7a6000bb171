/**
 * A cluster's PKI, one generation (a CA rotation makes the next): the
 * kubernetes CA (CN = the cluster name, as Magnum names it), the etcd and
 * front-proxy CAs, the service-account key pair, and the engine's admin
 * client certificate (CN=admin, O=system:masters) from the kubernetes CA.
 * These are the files kubeadm takes as a user-provided CA
 * (/etc/kubernetes/pki/ca.*, etcd/ca.*, front-proxy-ca.*, sa.*); it makes
 * every other certificate from them.
 */
import { CA_VALIDITY_DAYS, newCa } from './ca';
import { issueClientCert } from './issue';
import { type CertKeyPair, newRsaKeyPair, privateKeyPem, publicKeyPem } from './keys';
import type { ClusterPkiCerts } from '../../model/cluster';

/** Every private key (PKCS#8 PEM): what sealPki keeps sealed. */
export interface ClusterPkiKeys {
  kubernetesCa: string;
  etcdCa: string;
  frontProxyCa: string;
  admin: string;
  serviceAccount: string;
}

export interface ClusterPki {
  clusterName: string;
  /** 1 for the PKI a cluster is created with, +1 per CA rotation. */
  generation: number;
  certs: ClusterPkiCerts;
  keys: ClusterPkiKeys;
}

export type CaName = 'kubernetesCa' | 'etcdCa' | 'frontProxyCa';

export interface NewClusterPkiOptions {
  clusterName: string;
  generation?: number;
  /** CA lifetime in days (default 5 years, Magnum's). */
  caValidityDays?: number;
  /**
   * The admin certificate's lifetime (default: the CA's). It is the
   * engine's own credential for the cluster's whole life; a CA rotation
   * replaces it with the rest.
   */
  adminValidityDays?: number;
  now?: Date;
  /** The groups of the admin certificate (default system:masters). */
  adminGroups?: string[];
}

export async function newClusterPki(o: NewClusterPkiOptions): Promise<ClusterPki> {
  if (!o.clusterName) throw new Error('newClusterPki: clusterName is required');
  const generation = o.generation ?? 1;
  if (!(Number.isInteger(generation) && generation >= 1)) throw new Error(`newClusterPki: generation must be a positive integer, not ${generation}`);
  const caDays = o.caValidityDays ?? CA_VALIDITY_DAYS;
  const [kubernetesCa, etcdCa, frontProxyCa, sa] = await Promise.all([
    newCa({ commonName: o.clusterName, validityDays: caDays, now: o.now }),
    newCa({ commonName: 'etcd-ca', validityDays: caDays, now: o.now }),
    newCa({ commonName: 'front-proxy-ca', validityDays: caDays, now: o.now }),
    newRsaKeyPair(),
  ]);
  const admin = await issueClientCert(kubernetesCa, {
    cn: 'admin', o: o.adminGroups ?? ['system:masters'], validityDays: o.adminValidityDays ?? caDays, now: o.now,
  });
  return {
    clusterName: o.clusterName,
    generation,
    certs: {
      kubernetesCa: kubernetesCa.certPem,
      etcdCa: etcdCa.certPem,
      frontProxyCa: frontProxyCa.certPem,
      admin: admin.certPem,
      serviceAccountPublicKey: await publicKeyPem(sa.publicKey),
    },
    keys: {
      kubernetesCa: kubernetesCa.keyPem,
      etcdCa: etcdCa.keyPem,
      frontProxyCa: frontProxyCa.keyPem,
      admin: admin.keyPem,
      serviceAccount: await privateKeyPem(sa.privateKey),
    },
  };
}

/** One CA of the PKI as a certificate/key pair (what signCsr, issueClientCert and issueServerCert take). */
export function caPair(pki: Pick<ClusterPki, 'certs' | 'keys'>, ca: CaName = 'kubernetesCa'): CertKeyPair {
  return { certPem: pki.certs[ca], keyPem: pki.keys[ca] };
}

/** The engine's admin client certificate and key. */
export function adminPair(pki: Pick<ClusterPki, 'certs' | 'keys'>): CertKeyPair {
  return { certPem: pki.certs.admin, keyPem: pki.keys.admin };
}
