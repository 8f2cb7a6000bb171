/**
 * RSA key pairs as the cluster PKI uses them: RSA 2048 (Magnum's
 * rsa_key_size, kubeadm's default), signatures RSASSA-PKCS1-v1_5 with
 * SHA-256, private keys exported as PKCS#8 PEM ("PRIVATE KEY"), which
 * kube-apiserver, kubeadm and kubectl all read.
 */
import nodeCrypto, { type webcrypto } from 'node:crypto';
import { PkiInputError } from './errors';
import { x509 } from './x509';

export type CryptoKey = webcrypto.CryptoKey;
export type CryptoKeyPair = webcrypto.CryptoKeyPair;

export const RSA_BITS = 2048;
export const SIGNING_ALGORITHM = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;
const RSA_GEN = { ...SIGNING_ALGORITHM, modulusLength: RSA_BITS, publicExponent: new Uint8Array([1, 0, 1]) };

/** A certificate and its private key, both PEM (the key PKCS#8). */
export interface CertKeyPair {
  certPem: string;
  keyPem: string;
}

/** PEM text ending in a newline, as files and concatenated bundles (ca.crt with two CAs) need; @peculiar/x509 writes none. */
export function pemText(pem: string): string {
  return pem.endsWith('\n') ? pem : `${pem}\n`;
}

/** A fresh RSA 2048 key pair; extractable so that the private key can be handed back as PEM. */
export async function newRsaKeyPair(): Promise<CryptoKeyPair> {
  return globalThis.crypto.subtle.generateKey(RSA_GEN, true, ['sign', 'verify']);
}

export async function privateKeyPem(key: CryptoKey): Promise<string> {
  return pemText(x509.PemConverter.encode(await globalThis.crypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY'));
}

export async function publicKeyPem(key: CryptoKey): Promise<string> {
  return pemText(x509.PemConverter.encode(await globalThis.crypto.subtle.exportKey('spki', key), 'PUBLIC KEY'));
}

/**
 * A signing key from PEM: PKCS#8, or PKCS#1 ("RSA PRIVATE KEY") as an
 * operator's own CA may be. Node's KeyObject parses the PEM, WebCrypto gets
 * the PKCS#8 form; the CryptoKey is not extractable.
 */
export async function importSigningKey(pem: string): Promise<CryptoKey> {
  let der: Buffer;
  try {
    const key = nodeCrypto.createPrivateKey({ key: pem, format: 'pem' });
    if (key.asymmetricKeyType !== 'rsa') throw new PkiInputError(`the CA key is ${key.asymmetricKeyType}, not RSA`);
    der = key.export({ type: 'pkcs8', format: 'der' });
  } catch (e) {
    if (e instanceof PkiInputError) throw e;
    throw new PkiInputError('the CA key is not a PEM private key');
  }
  return globalThis.crypto.subtle.importKey('pkcs8', der, SIGNING_ALGORITHM, false, ['sign']);
}

/** The DER SubjectPublicKeyInfo of a private key's public half (to match a key with its certificate). */
export function spkiOfPrivateKey(pem: string): Buffer {
  return nodeCrypto.createPublicKey({ key: pem, format: 'pem' }).export({ type: 'spki', format: 'der' });
}

/** A certificate serial number: 16 random bytes, the top bit clear so that the DER INTEGER stays positive (RFC 5280: at most 20 octets). */
export function randomSerial(): string {
  const b = nodeCrypto.randomBytes(16);
  b[0] = (b[0] & 0x7f) | 0x01; // never a leading zero octet either
  return b.toString('hex');
}
