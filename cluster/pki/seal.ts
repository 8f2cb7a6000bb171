/**
 * A cluster PKI as the database keeps it: certificates in clear (they are
 * public, and the API serves the CA), every private key in one value sealed
 * with the product's SecretBox (common/secrets.ts, AES-256-GCM, key
 * rotation through SECRET_KEY_PREVIOUS).
 */
import { z } from 'zod';
import type { SecretBox } from '../../common/secrets';
import type { ClusterPki } from './cluster-pki';
import type { ClusterPkiCerts } from '../../model/cluster';

export interface SealedClusterPki {
  clusterName: string;
  generation: number;
  certs: ClusterPkiCerts;
  /** SecretBox.seal of the JSON of ClusterPki.keys. */
  sealedKeys: string;
}

const pem = z.string().min(1);
const keysSchema = z.object({ kubernetesCa: pem, etcdCa: pem, frontProxyCa: pem, admin: pem, serviceAccount: pem });

export function sealPki(box: SecretBox, pki: ClusterPki): SealedClusterPki {
  return { clusterName: pki.clusterName, generation: pki.generation, certs: { ...pki.certs }, sealedKeys: box.sealJson(pki.keys) };
}

/** The PKI with its keys opened; throws when the sealed value does not open or does not hold the five keys. */
export function openPki(box: SecretBox, sealed: SealedClusterPki): ClusterPki {
  const keys = keysSchema.parse(box.openJson<unknown>(sealed.sealedKeys));
  return { clusterName: sealed.clusterName, generation: sealed.generation, certs: { ...sealed.certs }, keys };
}
