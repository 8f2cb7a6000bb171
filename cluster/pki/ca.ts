/**
 * Self-signed certificate authorities (the cluster's kubernetes, etcd and
 * front-proxy CAs) and loading a CA back from PEM for signing.
 *
 * Dates: every certificate here starts one day in the past, as Magnum's
 * signer does (clock skew between the conductor and the nodes), and a leaf
 * never outlives the CA that signed it.
 */
import { PkiInputError } from './errors';
import { type CertKeyPair, type CryptoKey, importSigningKey, newRsaKeyPair, pemText, privateKeyPem, randomSerial, SIGNING_ALGORITHM, spkiOfPrivateKey } from './keys';
import { x509 } from './x509';

export const DAY_MS = 24 * 60 * 60 * 1000;
/** Magnum's CA lifetime: 5 years. */
export const CA_VALIDITY_DAYS = 5 * 365;
const BACKDATE_MS = DAY_MS;

export interface NewCaOptions {
  /** The subject's CN (for the kubernetes CA, the cluster name, as Magnum names it). */
  commonName: string;
  validityDays?: number;
  now?: Date;
}

/**
 * RSA 2048, SHA-256; basicConstraints critical CA with pathLength 0 (it
 * signs leaves only), keyUsage critical keyCertSign + cRLSign +
 * digitalSignature (kubeadm's CA usages), subjectKeyIdentifier.
 */
export async function newCa(o: NewCaOptions): Promise<CertKeyPair> {
  const now = o.now ?? new Date();
  const keys = await newRsaKeyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: [{ CN: [o.commonName] }],
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + (o.validityDays ?? CA_VALIDITY_DAYS) * DAY_MS),
    signingAlgorithm: SIGNING_ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: pemText(cert.toString('pem')), keyPem: await privateKeyPem(keys.privateKey) };
}

/** A CA ready to sign: its parsed certificate and its (non-extractable) key. */
export interface SigningCa {
  cert: x509.X509Certificate;
  key: CryptoKey;
}

/** Parses a certificate PEM (the first certificate of the text). */
export function parseCertificate(pem: string): x509.X509Certificate {
  try {
    return new x509.X509Certificate(pem);
  } catch {
    throw new PkiInputError('not a PEM certificate');
  }
}

/** The CA from PEM, after checking that it is a CA and that the key is the certificate's. */
export async function loadCa(ca: CertKeyPair): Promise<SigningCa> {
  const cert = parseCertificate(ca.certPem);
  const bc = cert.getExtension(x509.BasicConstraintsExtension);
  if (!bc?.ca) throw new PkiInputError(`${cert.subject} is not a CA certificate (no basicConstraints CA=true)`);
  const key = await importSigningKey(ca.keyPem);
  if (!Buffer.from(cert.publicKey.rawData).equals(spkiOfPrivateKey(ca.keyPem))) {
    throw new PkiInputError(`the CA key does not belong to the certificate ${cert.subject}`);
  }
  return { cert, key };
}

/** The validity window of a certificate signed by `ca`: [now - 1 day, min(now + days, CA's notAfter)]. */
export function leafValidity(ca: SigningCa, validityDays: number, now: Date = new Date()): { notBefore: Date; notAfter: Date } {
  if (!(validityDays > 0)) throw new PkiInputError(`validity must be a positive number of days, not ${validityDays}`);
  const wanted = now.getTime() + validityDays * DAY_MS;
  const notAfter = new Date(Math.min(wanted, ca.cert.notAfter.getTime()));
  if (notAfter.getTime() <= now.getTime()) throw new PkiInputError(`the CA ${ca.cert.subject} has expired`);
  return { notBefore: new Date(now.getTime() - BACKDATE_MS), notAfter };
}
