/**
 * A cluster PKI for tests, made here with @peculiar/x509 on Node's WebCrypto
 * (independently of the simulator's own kubeadm): the kubernetes,
 * front-proxy and etcd CAs, service-account keys, client certificates
 * (an admin in system:masters, a node in system:nodes) and kubeconfigs for
 * the real kubectl.
 */
import 'reflect-metadata';
import { createPrivateKey, generateKeyPairSync, webcrypto, type KeyObject } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as never);
const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGN = { name: 'ECDSA', hash: 'SHA-256' } as const;

export interface Ca {
  cert: x509.X509Certificate;
  keys: webcrypto.CryptoKeyPair;
  certPem: string;
  keyPem: string;
}

export interface ClusterPki {
  ca: Ca;
  frontProxy: Ca;
  etcd: Ca;
  saKey: string;
  saPub: string;
}

async function pemOfKey(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  // kubeadm writes EC keys as SEC1 "EC PRIVATE KEY"; either is fine for it
  return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }).export({ type: 'sec1', format: 'pem' }) as string;
}

const newKeys = () => webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']) as Promise<webcrypto.CryptoKeyPair>;

export async function makeCa(commonName: string): Promise<Ca> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Date.now().toString(16),
    name: `CN=${commonName}`,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 10 * 365 * 24 * 3600_000),
    signingAlgorithm: SIGN,
    keys: keys as never,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey as never),
    ],
  });
  return { cert, keys, certPem: `${cert.toString('pem')}\n`, keyPem: await pemOfKey(keys.privateKey) };
}

export async function makeClusterPki(): Promise<ClusterPki> {
  const sa: { privateKey: KeyObject; publicKey: KeyObject } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    ca: await makeCa('kubernetes'),
    frontProxy: await makeCa('front-proxy-ca'),
    etcd: await makeCa('etcd-ca'),
    saKey: sa.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string,
    saPub: sa.publicKey.export({ type: 'spki', format: 'pem' }) as string,
  };
}

/** A client certificate of `ca` (CN/O as Kubernetes reads them) with its key, PEM. */
export async function clientCert(ca: Ca, commonName: string, organization?: string): Promise<{ certPem: string; keyPem: string }> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: `${Date.now().toString(16)}01`,
    subject: `${organization ? `O=${organization}, ` : ''}CN=${commonName}`,
    issuer: ca.cert.subject,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 365 * 24 * 3600_000),
    signingAlgorithm: SIGN,
    publicKey: keys.publicKey as never,
    signingKey: ca.keys.privateKey as never,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
    ],
  });
  return { certPem: `${cert.toString('pem')}\n`, keyPem: await pemOfKey(keys.privateKey) };
}

/** A kubeconfig with inline credentials (what the product writes for a worker's kubelet.conf, or for its own admin). */
export function kubeconfig(server: string, caPem: string, user: string, client: { certPem: string; keyPem: string }): string {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return [
    'apiVersion: v1', 'kind: Config',
    'clusters:', '- name: cluster', '  cluster:', `    server: ${server}`, `    certificate-authority-data: ${b64(caPem)}`,
    'users:', `- name: ${user}`, '  user:', `    client-certificate-data: ${b64(client.certPem)}`, `    client-key-data: ${b64(client.keyPem)}`,
    'contexts:', '- name: ctx', '  context:', '    cluster: cluster', `    user: ${user}`,
    'current-context: ctx', '',
  ].join('\n');
}

/** kubeadm's discovery pin of a CA: sha256 of its DER SubjectPublicKeyInfo. */
export async function caHash(ca: Ca): Promise<string> {
  const digest = await webcrypto.subtle.digest('SHA-256', ca.cert.publicKey.rawData);
  return `sha256:${Buffer.from(digest).toString('hex')}`;
}
