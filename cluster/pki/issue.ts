/**
 * Leaf certificates signed by a cluster CA: the engine's own client and
 * server certificates (issueClientCert, issueServerCert) and the common
 * signing step that signCsr uses too.
 */
import net from 'node:net';
import { type SigningCa, leafValidity, loadCa } from './ca';
import { type CertKeyPair, newRsaKeyPair, pemText, privateKeyPem, randomSerial, SIGNING_ALGORITHM } from './keys';
import { x509 } from './x509';

/** Default lifetime of a leaf certificate: 1 year (kubeadm's). */
export const LEAF_VALIDITY_DAYS = 365;

export interface LeafParams {
  subject: x509.Name | x509.JsonName;
  publicKey: x509.PublicKeyType;
  extensions: x509.Extension[];
  validityDays: number;
  now?: Date;
}

/**
 * Signs a leaf: issuer = the CA's subject (byte for byte, so that chain
 * building matches it), a random serial, SHA-256, the given extensions plus
 * an authorityKeyIdentifier naming the CA's key.
 */
export async function signLeaf(ca: SigningCa, p: LeafParams): Promise<x509.X509Certificate> {
  const { notBefore, notAfter } = leafValidity(ca, p.validityDays, p.now);
  const caSki = ca.cert.getExtension(x509.SubjectKeyIdentifierExtension);
  const aki = caSki ? new x509.AuthorityKeyIdentifierExtension(caSki.keyId) : await x509.AuthorityKeyIdentifierExtension.create(ca.cert.publicKey);
  return x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: p.subject,
    issuer: ca.cert.subjectName,
    notBefore,
    notAfter,
    publicKey: p.publicKey,
    signingKey: ca.key,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [...p.extensions, aki],
  });
}

export interface ClientCertOptions {
  /** The user name Kubernetes sees (CN), e.g. `admin`, `system:node:<name>`. */
  cn: string;
  /** The groups (O), e.g. `system:masters`, `system:nodes`. */
  o?: string[];
  validityDays?: number;
  now?: Date;
}

export interface ServerCertOptions {
  cn: string;
  /** Host names and IP addresses the server answers on (each IP literal becomes an IP SAN, the rest DNS SANs). */
  sans: string[];
  validityDays?: number;
  now?: Date;
}

const LEAF_KEY_USAGE = x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment;

function subjectOf(cn: string, o: string[] = []): x509.JsonName {
  return [...o.map((org) => ({ O: [org] })), { CN: [cn] }];
}

async function issueWithNewKey(caPair: CertKeyPair, subject: x509.JsonName, extensions: x509.Extension[], validityDays: number, now?: Date): Promise<CertKeyPair> {
  const ca = await loadCa(caPair);
  const keys = await newRsaKeyPair();
  const cert = await signLeaf(ca, { subject, publicKey: keys.publicKey, extensions, validityDays, now });
  return { certPem: pemText(cert.toString('pem')), keyPem: await privateKeyPem(keys.privateKey) };
}

/** A client certificate (clientAuth) with a new RSA 2048 key: Kubernetes authenticates it as user CN in groups O. */
export async function issueClientCert(ca: CertKeyPair, o: ClientCertOptions): Promise<CertKeyPair> {
  return issueWithNewKey(ca, subjectOf(o.cn, o.o), [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(LEAF_KEY_USAGE, true),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth], false),
  ], o.validityDays ?? LEAF_VALIDITY_DAYS, o.now);
}

/** A TLS server certificate (serverAuth) with a new RSA 2048 key for the given names. */
export async function issueServerCert(ca: CertKeyPair, o: ServerCertOptions): Promise<CertKeyPair> {
  const names: x509.JsonGeneralName[] = o.sans.map((s) => (net.isIP(s) ? { type: 'ip', value: s } : { type: 'dns', value: s }));
  return issueWithNewKey(ca, subjectOf(o.cn), [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(LEAF_KEY_USAGE, true),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false),
    ...(names.length ? [new x509.SubjectAlternativeNameExtension(names, false)] : []),
  ], o.validityDays ?? LEAF_VALIDITY_DAYS, o.now);
}
