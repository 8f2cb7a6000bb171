/**
 * X.509 for the simulated Kubernetes nodes, on @peculiar/x509 over Node's
 * WebCrypto (the library the product's PKI uses too): keys as kubeadm writes
 * them (RSA PKCS#1 "RSA PRIVATE KEY", EC SEC1 "EC PRIVATE KEY"), certificates
 * as kubeadm's pkiutil signs them, CSRs as the kubelet sends them, and the
 * `sha256:<hex>` pin of a CA's SubjectPublicKeyInfo that `kubeadm join` checks.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPair, randomBytes, webcrypto, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { promisify } from 'node:util';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

type WebKey = webcrypto.CryptoKey;
type SignAlgorithm = webcrypto.RsaHashedImportParams | webcrypto.EcdsaParams;
// The library's types name the DOM's WebCrypto; Node's is the same API.
x509.cryptoProvider.set(webcrypto as never);
const subtle = webcrypto.subtle;
const generate = promisify(generateKeyPair);

/** ClusterConfiguration.encryptionAlgorithm values (kubeadm.k8s.io/v1beta4). */
export const KEY_ALGORITHMS = ['RSA-2048', 'RSA-3072', 'RSA-4096', 'ECDSA-P256', 'ECDSA-P384'] as const;
export type KeyAlgorithm = (typeof KEY_ALGORITHMS)[number];

export const YEAR_MS = 365 * 24 * 3600_000;

export async function newPrivateKey(alg: KeyAlgorithm): Promise<KeyObject> {
  if (alg.startsWith('RSA')) return (await generate('rsa', { modulusLength: Number(alg.slice(4)) })).privateKey;
  return (await generate('ec', { namedCurve: alg === 'ECDSA-P384' ? 'P-384' : 'P-256' })).privateKey;
}

/** PEM as kubeadm writes private keys. */
export function privateKeyPem(key: KeyObject): string {
  const type = key.asymmetricKeyType === 'rsa' ? 'pkcs1' : key.asymmetricKeyType === 'ec' ? 'sec1' : 'pkcs8';
  return key.export({ type, format: 'pem' }) as string;
}

export function publicKeyPem(key: KeyObject): string {
  return createPublicKey(key).export({ type: 'spki', format: 'pem' }) as string;
}

/** Any PEM private key (PKCS#1, SEC1, PKCS#8); throws on garbage. */
export function parsePrivateKey(pem: string | Buffer): KeyObject {
  return createPrivateKey(pem);
}

/** The first certificate of a PEM file (a bundle is allowed). */
export function parseCert(pem: string | Buffer): x509.X509Certificate {
  const text = pem.toString();
  const m = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(text);
  if (!m) throw new Error('no PEM certificate found');
  return new x509.X509Certificate(m[0]);
}

export function certPem(cert: x509.X509Certificate): string {
  return `${cert.toString('pem')}\n`;
}

function spkiDer(key: KeyObject): Buffer {
  return createPublicKey(key).export({ type: 'spki', format: 'der' });
}

/** Whether a private key belongs to a certificate. */
export function keyMatchesCert(key: KeyObject, cert: x509.X509Certificate): boolean {
  return spkiDer(key).equals(Buffer.from(cert.publicKey.rawData));
}

/** kubeadm's public key pin: sha256 of the DER SubjectPublicKeyInfo, hex. */
export function caCertHash(cert: x509.X509Certificate): string {
  return `sha256:${createHash('sha256').update(Buffer.from(cert.publicKey.rawData)).digest('hex')}`;
}

function webAlgorithm(key: KeyObject): { importAlg: webcrypto.RsaHashedImportParams | webcrypto.EcKeyImportParams; sign: SignAlgorithm } {
  if (key.asymmetricKeyType === 'rsa') {
    return { importAlg: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, sign: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } };
  }
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve === 'secp384r1' ? 'P-384' : key.asymmetricKeyDetails?.namedCurve === 'secp521r1' ? 'P-521' : 'P-256';
    const hash = curve === 'P-384' ? 'SHA-384' : curve === 'P-521' ? 'SHA-512' : 'SHA-256';
    return { importAlg: { name: 'ECDSA', namedCurve: curve }, sign: { name: 'ECDSA', hash } };
  }
  throw new Error(`unsupported key type ${key.asymmetricKeyType ?? 'unknown'}`);
}

async function webKeys(key: KeyObject): Promise<{ privateKey: WebKey; publicKey: WebKey; sign: SignAlgorithm }> {
  const { importAlg, sign } = webAlgorithm(key);
  const pkcs8 = key.export({ type: 'pkcs8', format: 'der' });
  const privateKey = await subtle.importKey('pkcs8', pkcs8, importAlg, true, ['sign']);
  const publicKey = await subtle.importKey('spki', spkiDer(key), importAlg, true, ['verify']);
  return { privateKey, publicKey, sign };
}

export interface CertSpec {
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ips?: string[];
  /** Extended key usages; none for a CA. */
  usages?: ('server' | 'client')[];
  isCA?: boolean;
  notBefore?: Date;
  notAfter: Date;
}

/** RFC 4514 escaping for a name attribute value. */
function escapeRdn(v: string): string {
  return v.replace(/([,+"\\<>;=])/g, '\\$1').replace(/^([ #])/, '\\$1').replace(/ $/, '\\ ');
}

export function subjectOf(spec: Pick<CertSpec, 'commonName' | 'organizations'>): string {
  return [...(spec.organizations ?? []).map((o) => `O=${escapeRdn(o)}`), `CN=${escapeRdn(spec.commonName)}`].join(', ');
}

export interface Issuer {
  cert: x509.X509Certificate;
  key: KeyObject;
}

/** Signs a certificate for `publicKey` (a key of ours, or one from a CSR); without an issuer it is self-signed with `key`. */
export async function issueCert(spec: CertSpec, subjectKey: KeyObject | x509.PublicKey, issuer?: Issuer): Promise<x509.X509Certificate> {
  const signer = issuer?.key ?? (subjectKey as KeyObject);
  const keys = await webKeys(signer);
  const publicKey = ('asymmetricKeyType' in subjectKey ? (issuer ? (await webKeys(subjectKey)).publicKey : keys.publicKey) : subjectKey) as x509.PublicKeyType;
  const usage = spec.isCA
    ? x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.keyCertSign
    : x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment;
  const extensions: x509.Extension[] = [new x509.KeyUsagesExtension(usage, true), new x509.BasicConstraintsExtension(Boolean(spec.isCA), undefined, true)];
  if (spec.usages?.length) {
    extensions.push(new x509.ExtendedKeyUsageExtension(spec.usages.map((u) => (u === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth))));
  }
  if (spec.isCA) extensions.push(await x509.SubjectKeyIdentifierExtension.create(publicKey));
  if (issuer) extensions.push(await x509.AuthorityKeyIdentifierExtension.create(issuer.cert));
  const names = [...(spec.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })), ...(spec.ips ?? []).filter((ip) => isIP(ip)).map((value) => ({ type: 'ip' as const, value }))];
  if (names.length) extensions.push(new x509.SubjectAlternativeNameExtension(names));
  const subject = subjectOf(spec);
  // a positive serial: the first bit clear
  const serial = randomBytes(16);
  serial[0] &= 0x7f;
  return x509.X509CertificateGenerator.create({
    serialNumber: serial.toString('hex'),
    subject,
    issuer: issuer ? issuer.cert.subject : subject,
    notBefore: spec.notBefore ?? issuer?.cert.notBefore ?? new Date(Date.now() - 60_000),
    notAfter: spec.notAfter,
    publicKey,
    signingKey: keys.privateKey as never,
    signingAlgorithm: keys.sign as never,
    extensions,
  });
}

/** Whether `cert` was signed by `ca` (signature and issuer name). */
export async function signedBy(cert: x509.X509Certificate, ca: x509.X509Certificate): Promise<boolean> {
  if (cert.issuer !== ca.subject) return false;
  try {
    return await cert.verify({ publicKey: ca.publicKey, signatureOnly: true });
  } catch {
    return false;
  }
}

/** A PKCS#10 request as the kubelet makes one (its own key, subject O/CN). */
export async function newCsr(key: KeyObject, spec: Pick<CertSpec, 'commonName' | 'organizations'>): Promise<string> {
  const k = await webKeys(key);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subjectOf(spec), keys: { privateKey: k.privateKey, publicKey: k.publicKey } as never, signingAlgorithm: k.sign as never });
  return `${csr.toString('pem')}\n`;
}

export interface ParsedCsr {
  commonName: string;
  organizations: string[];
  publicKey: x509.PublicKey;
  validSignature: boolean;
}

export async function parseCsr(pem: string): Promise<ParsedCsr> {
  const csr = new x509.Pkcs10CertificateRequest(pem);
  return {
    commonName: csr.subjectName.getField('CN')[0] ?? '',
    organizations: csr.subjectName.getField('O'),
    publicKey: csr.publicKey,
    validSignature: await csr.verify(),
  };
}

export function certNames(cert: x509.X509Certificate): { commonName: string; organizations: string[] } {
  return { commonName: cert.subjectName.getField('CN')[0] ?? '', organizations: cert.subjectName.getField('O') };
}
