/**
 * Signing a user's CSR with the cluster CA as Magnum does
 * (magnum/common/x509/operations.py sign + validator.py filter_extensions,
 * with its default x509 options: allow_ca false, the five allowed
 * extensions, the three allowed key usages):
 *
 * - the subject is the CSR's, the issuer the CA's, SHA-256;
 * - only keyUsage, extendedKeyUsage, subjectAltName, basicConstraints and
 *   subjectKeyIdentifier are copied; any other extension is dropped when
 *   not critical and refuses the CSR when critical;
 * - keyUsage keeps digitalSignature, keyEncipherment and nonRepudiation
 *   (content commitment); another bit set refuses a critical keyUsage and is
 *   cleared from a non-critical one;
 * - basicConstraints CA=true becomes CA=false (non-critical); when it is
 *   critical Magnum refuses the CSR, and so do we.
 *
 * Beyond Magnum: the CSR's signature is verified (cryptography's loader
 * does not), RSA keys under 2048 bits are refused, the text is bounded, and
 * the lifetime defaults to 1 year (Magnum's term_of_validity is 5 years)
 * and never exceeds the CA's.
 */
import nodeCrypto from 'node:crypto';
import { loadCa } from './ca';
import { CsrRejected } from './errors';
import { LEAF_VALIDITY_DAYS, signLeaf } from './issue';
import { type CertKeyPair, pemText } from './keys';
import { x509 } from './x509';

export const MAX_CSR_CHARS = 64 * 1024;
const MIN_RSA_BITS = 2048;

const OID = {
  keyUsage: '2.5.29.15',
  extendedKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  subjectKeyIdentifier: '2.5.29.14',
} as const;
const ALLOWED: ReadonlySet<string> = new Set(Object.values(OID));
/** Names for the OIDs a refusal may mention (others are shown as dotted OIDs). */
const NAMES: Record<string, string> = {
  ...Object.fromEntries(Object.entries(OID).map(([name, oid]) => [oid, name])),
  '2.5.29.32': 'certificatePolicies', '2.5.29.30': 'nameConstraints', '2.5.29.36': 'policyConstraints',
  '2.5.29.35': 'authorityKeyIdentifier', '2.5.29.31': 'cRLDistributionPoints', '1.3.6.1.5.5.7.1.1': 'authorityInfoAccess',
};
const nameOf = (oid: string) => NAMES[oid] ?? oid;

const ALLOWED_KEY_USAGE = x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.nonRepudiation;

export interface SignCsrOptions {
  /** Lifetime in days (default 365); cut to the CA's own end. */
  validityDays?: number;
  now?: Date;
}

/** The PEM certificate for `csrPem`, signed by `ca`; CsrRejected (400) for a CSR Magnum's rules refuse or that is not a valid CSR. */
export async function signCsr(ca: CertKeyPair, csrPem: string, o: SignCsrOptions = {}): Promise<string> {
  const csr = await parseVerifiedCsr(csrPem);
  const extensions = filterExtensions(csr);
  const signer = await loadCa(ca);
  const cert = await signLeaf(signer, {
    subject: csr.subjectName,
    publicKey: csr.publicKey,
    extensions,
    validityDays: o.validityDays ?? LEAF_VALIDITY_DAYS,
    now: o.now,
  });
  return pemText(cert.toString('pem'));
}

async function parseVerifiedCsr(pem: string): Promise<x509.Pkcs10CertificateRequest> {
  if (typeof pem !== 'string' || pem.length > MAX_CSR_CHARS) throw new CsrRejected(`the CSR must be a PEM text of at most ${MAX_CSR_CHARS} characters`);
  if (!/-----BEGIN (NEW )?CERTIFICATE REQUEST-----/.test(pem)) throw new CsrRejected('the CSR is not a PEM certificate request (BEGIN CERTIFICATE REQUEST)');
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(pem);
  } catch {
    throw new CsrRejected('the CSR cannot be parsed');
  }
  let ok = false;
  try {
    ok = await csr.verify();
  } catch {
    ok = false; // an algorithm WebCrypto does not know counts as unverifiable
  }
  if (!ok) throw new CsrRejected('the CSR signature does not verify');
  checkKey(csr.publicKey);
  return csr;
}

function checkKey(key: x509.PublicKey): void {
  let details: nodeCrypto.AsymmetricKeyDetails | undefined;
  let type: string | undefined;
  try {
    const k = nodeCrypto.createPublicKey({ key: Buffer.from(key.rawData), format: 'der', type: 'spki' });
    type = k.asymmetricKeyType;
    details = k.asymmetricKeyDetails;
  } catch {
    throw new CsrRejected('the CSR public key cannot be read');
  }
  if (type === 'rsa' && (details?.modulusLength ?? 0) < MIN_RSA_BITS) {
    throw new CsrRejected(`the CSR RSA key has ${details?.modulusLength} bits; at least ${MIN_RSA_BITS} are required`);
  }
}

function csrExtensions(csr: x509.Pkcs10CertificateRequest): x509.Extension[] {
  let list: x509.Extension[];
  try {
    list = csr.extensions;
  } catch {
    throw new CsrRejected('the CSR extension request cannot be parsed');
  }
  const seen = new Set<string>();
  for (const e of list) {
    if (seen.has(e.type)) throw new CsrRejected(`the CSR names the extension ${nameOf(e.type)} twice`);
    seen.add(e.type);
  }
  return list;
}

/** The extensions the certificate gets (Magnum's filter_extensions). */
export function filterExtensions(csr: x509.Pkcs10CertificateRequest): x509.Extension[] {
  const out: x509.Extension[] = [];
  for (const ext of csrExtensions(csr)) {
    if (!ALLOWED.has(ext.type)) {
      if (ext.critical) throw new CsrRejected(`the CSR has the critical extension ${nameOf(ext.type)}, which is not allowed`);
      continue; // a non-critical disallowed extension is dropped
    }
    const kept = keepExtension(ext);
    if (kept) out.push(kept);
  }
  return out;
}

function keepExtension(ext: x509.Extension): x509.Extension | undefined {
  try {
    if (ext.type === OID.keyUsage) return keyUsage(new x509.KeyUsagesExtension(ext.rawData));
    if (ext.type === OID.basicConstraints) return basicConstraints(new x509.BasicConstraintsExtension(ext.rawData));
  } catch (e) {
    if (e instanceof CsrRejected) throw e;
    throw new CsrRejected(`the CSR extension ${nameOf(ext.type)} cannot be parsed`);
  }
  return new x509.Extension(ext.type, ext.critical, ext.value);
}

function keyUsage(ku: x509.KeyUsagesExtension): x509.Extension | undefined {
  const extra = ku.usages & ~ALLOWED_KEY_USAGE;
  if (extra && ku.critical) {
    const names = Object.entries(x509.KeyUsageFlags).filter(([, v]) => typeof v === 'number' && (extra & v)).map(([k]) => k);
    throw new CsrRejected(`the CSR asks for the key usage ${names.join(', ')} in a critical keyUsage, which is not allowed`);
  }
  const kept = ku.usages & ALLOWED_KEY_USAGE;
  // An empty keyUsage would claim no usage at all: left out instead (Magnum writes an empty one).
  return kept ? new x509.KeyUsagesExtension(kept, ku.critical) : undefined;
}

function basicConstraints(bc: x509.BasicConstraintsExtension): x509.Extension {
  if (!bc.ca) return new x509.BasicConstraintsExtension(false, undefined, bc.critical);
  if (bc.critical) throw new CsrRejected('the CSR asks to be a CA in a critical basicConstraints, which is not allowed');
  return new x509.BasicConstraintsExtension(false, undefined, false);
}
