/**
 * cluster/pki on its own, checked with openssl as the independent reader:
 * the CAs and the admin certificate as specified, Magnum's CSR filter,
 * kubeadm's CA hash, kubeconfigs, bootstrap tokens, sealing.
 */
import crypto from 'node:crypto';
import YAML from 'yaml';
import {
  BOOTSTRAP_TOKEN_PATTERN, type ClusterPki, CsrRejected, bootstrapTokenSecret, caCertHash, caPair, issueClientCert, issueServerCert, kubeconfig,
  newBootstrapToken, newClusterPki, openPki, parseCertificate, sealPki, signCsr, tokenKubeconfig,
} from '../../cluster/pki';
import { SecretBox } from '../../common/secrets';
import { certText, openssl, opensslCsr, opensslSign, opensslVerifies } from '../support/openssl';

let pki: ClusterPki;
let other: ClusterPki;

beforeAll(async () => {
  [pki, other] = await Promise.all([newClusterPki({ clusterName: 'k8s-alpha' }), newClusterPki({ clusterName: 'k8s-beta', generation: 2 })]);
});

const DAY = 24 * 3600 * 1000;

describe('newClusterPki', () => {
  it('makes three self-signed RSA 2048 SHA-256 CAs, pathlen 0, keyCertSign/cRLSign/digitalSignature, SKI, 5 years', () => {
    for (const [name, cn] of [['kubernetesCa', 'k8s-alpha'], ['etcdCa', 'etcd-ca'], ['frontProxyCa', 'front-proxy-ca']] as const) {
      const pem = pki.certs[name];
      const text = certText(pem);
      expect(text).toMatch(new RegExp(`Issuer: CN = ${cn}\\n`));
      expect(text).toMatch(new RegExp(`Subject: CN = ${cn}\\n`));
      expect(text).toContain('Public-Key: (2048 bit)');
      expect(text).toContain('Signature Algorithm: sha256WithRSAEncryption');
      expect(text).toMatch(/Basic Constraints: critical\s+CA:TRUE, pathlen:0/);
      expect(text).toMatch(/Key Usage: critical\s+Digital Signature, Certificate Sign, CRL Sign/);
      expect(text).toContain('Subject Key Identifier');
      expect(opensslVerifies(pem, pem)).toBe(true); // self-signed
      const c = parseCertificate(pem);
      const years = (c.notAfter.getTime() - Date.now()) / (365 * DAY);
      expect(years).toBeGreaterThan(4.99);
      expect(years).toBeLessThan(5.01);
      // the key is PKCS#8 and belongs to the certificate
      expect(pki.keys[name]).toMatch(/^-----BEGIN PRIVATE KEY-----/);
      const pub = crypto.createPublicKey(pki.keys[name]).export({ type: 'spki', format: 'der' });
      expect(pub.equals(Buffer.from(c.publicKey.rawData))).toBe(true);
    }
    expect(pki.generation).toBe(1);
    expect(other.generation).toBe(2);
  });

  it('makes the admin client certificate CN=admin, O=system:masters, clientAuth, from the kubernetes CA', () => {
    const text = certText(pki.certs.admin);
    expect(text).toContain('Subject: O = system:masters, CN = admin');
    expect(text).toContain('Issuer: CN = k8s-alpha');
    expect(text).toMatch(/Extended Key Usage:\s+TLS Web Client Authentication/);
    expect(text).toMatch(/Basic Constraints: critical\s+CA:FALSE/);
    expect(opensslVerifies(pki.certs.kubernetesCa, pki.certs.admin, { purpose: 'sslclient' })).toBe(true);
    expect(opensslVerifies(other.certs.kubernetesCa, pki.certs.admin)).toBe(false);
    expect(opensslVerifies(pki.certs.etcdCa, pki.certs.admin)).toBe(false);
  });

  it('makes an RSA 2048 service-account key pair (PEM public + PKCS#8 private) that match', () => {
    expect(pki.certs.serviceAccountPublicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    const priv = crypto.createPrivateKey(pki.keys.serviceAccount);
    expect(priv.asymmetricKeyDetails?.modulusLength).toBe(2048);
    const sig = crypto.sign('sha256', Buffer.from('jwt'), priv);
    expect(crypto.verify('sha256', Buffer.from('jwt'), pki.certs.serviceAccountPublicKey, sig)).toBe(true);
  });
});

describe('issueClientCert / issueServerCert', () => {
  it('issues a kubelet client certificate system:node:<name> in system:nodes', async () => {
    const c = await issueClientCert(caPair(pki), { cn: 'system:node:worker-0', o: ['system:nodes'] });
    expect(certText(c.certPem)).toContain('Subject: O = system:nodes, CN = system:node:worker-0');
    expect(opensslVerifies(pki.certs.kubernetesCa, c.certPem, { purpose: 'sslclient' })).toBe(true);
  });

  it('issues a server certificate with IP and DNS SANs, never outliving its CA', async () => {
    const s = await issueServerCert(caPair(pki), { cn: 'kube-apiserver', sans: ['10.0.0.1', 'kubernetes.default'], validityDays: 100 * 365 });
    const text = certText(s.certPem);
    expect(text).toMatch(/Subject Alternative Name:\s+IP Address:10.0.0.1, DNS:kubernetes.default/);
    expect(opensslVerifies(pki.certs.kubernetesCa, s.certPem, { purpose: 'sslserver' })).toBe(true);
    expect(parseCertificate(s.certPem).notAfter.getTime()).toBeLessThanOrEqual(parseCertificate(pki.certs.kubernetesCa).notAfter.getTime());
  });
});

describe('signCsr (Magnum rules)', () => {
  it('signs a python-magnumclient CSR (CN=admin, O=system:masters, no extensions): subject from the CSR, 1 year', async () => {
    const { csrPem } = opensslCsr('/CN=admin/O=system:masters');
    expect(openssl(['req', '-noout', '-text'], csrPem).stdout).not.toMatch(/X509v3/);
    const cert = await signCsr(caPair(pki), csrPem);
    const text = certText(cert);
    expect(text).toContain('Subject: CN = admin, O = system:masters');
    expect(text).toContain('Issuer: CN = k8s-alpha');
    expect(opensslVerifies(pki.certs.kubernetesCa, cert, { purpose: 'sslclient' })).toBe(true);
    const c = parseCertificate(cert);
    expect(Math.round((c.notAfter.getTime() - Date.now()) / DAY)).toBe(365);
    expect(c.notBefore.getTime()).toBeLessThan(Date.now() - DAY + 60_000); // back-dated one day, as Magnum does
    // only the authority key identifier is added
    expect(c.extensions.map((e) => e.type)).toEqual(['2.5.29.35']);
    expect(Math.round((parseCertificate(await signCsr(caPair(pki), csrPem, { validityDays: 30 })).notAfter.getTime() - Date.now()) / DAY)).toBe(30);
  });

  it('keeps allowed extensions, drops non-critical disallowed ones, clears disallowed key usages, strips CA=true', async () => {
    const { csrPem, keyPem } = opensslCsr('/CN=bob/O=devs', [
      'basicConstraints=CA:TRUE,pathlen:3',
      'keyUsage=digitalSignature,keyEncipherment,keyCertSign,cRLSign',
      'extendedKeyUsage=clientAuth',
      'subjectAltName=DNS:bob.example,IP:192.0.2.7',
      'subjectKeyIdentifier=hash',
      'nsComment=a non-critical disallowed extension',
      'certificatePolicies=1.2.3.4',
    ]);
    const cert = await signCsr(caPair(pki), csrPem);
    const text = certText(cert);
    expect(text).toMatch(/Basic Constraints:\s+CA:FALSE\n/);
    expect(text).not.toContain('CA:TRUE');
    expect(text).toMatch(/Key Usage:\s+Digital Signature, Key Encipherment\n/);
    expect(text).not.toMatch(/Certificate Sign|CRL Sign/);
    expect(text).toMatch(/Extended Key Usage:\s+TLS Web Client Authentication/);
    expect(text).toMatch(/Subject Alternative Name:\s+DNS:bob.example, IP Address:192.0.2.7/);
    expect(text).toContain('Subject Key Identifier');
    expect(text).not.toMatch(/Netscape Comment|Certificate Policies/);
    // the stripped certificate is no CA: a certificate it signs does not verify through it
    expect(opensslVerifies(pki.certs.kubernetesCa, cert)).toBe(true);
    const leaf = opensslSign(cert, keyPem, opensslCsr('/CN=mallory').csrPem);
    expect(opensslVerifies(pki.certs.kubernetesCa, leaf, { untrusted: cert })).toBe(false);
  });

  it.each([
    ['a critical disallowed extension', ['nameConstraints=critical,permitted;DNS:example.com'], /critical extension nameConstraints/],
    ['a critical CA=true', ['basicConstraints=critical,CA:TRUE'], /CA in a critical basicConstraints/],
    ['a critical keyUsage with keyCertSign', ['keyUsage=critical,digitalSignature,keyCertSign'], /keyCertSign in a critical keyUsage/],
  ])('refuses a CSR with %s (CsrRejected, status 400)', async (_what, ext, message) => {
    const err = await signCsr(caPair(pki), opensslCsr('/CN=eve', ext).csrPem).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CsrRejected);
    expect((err as CsrRejected).status).toBe(400);
    expect((err as Error).message).toMatch(message);
  });

  it('refuses a CSR whose signature does not verify, garbage, a 1024-bit key, and an oversized text', async () => {
    const { csrPem } = opensslCsr('/CN=admin/O=system:masters');
    const der = openssl(['req', '-outform', 'DER'], csrPem).raw;
    der[der.length - 1] ^= 0x01; // the last byte of the signature
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END CERTIFICATE REQUEST-----\n`;
    const weak = opensslCsr('/CN=admin', [], 1024).csrPem;
    for (const [bad, message] of [
      [tampered, /signature does not verify/],
      ['-----BEGIN CERTIFICATE REQUEST-----\nnot base64 at all\n-----END CERTIFICATE REQUEST-----\n', /cannot be parsed/],
      ['hello', /not a PEM certificate request/],
      [weak, /1024 bits/],
      ['x'.repeat(70_000), /at most/],
    ] as const) {
      await expect(signCsr(caPair(pki), bad)).rejects.toThrow(CsrRejected);
      await expect(signCsr(caPair(pki), bad)).rejects.toThrow(message);
    }
  });
});

describe('caCertHash', () => {
  it('is sha256 of the DER SubjectPublicKeyInfo, as openssl x509 -pubkey | openssl pkey -pubin -outform der | sha256sum', () => {
    for (const ca of [pki.certs.kubernetesCa, other.certs.kubernetesCa]) {
      const pub = openssl(['x509', '-pubkey', '-noout'], ca).stdout;
      const der = openssl(['pkey', '-pubin', '-outform', 'der'], pub).raw;
      expect(caCertHash(ca)).toBe(`sha256:${crypto.createHash('sha256').update(der).digest('hex')}`);
    }
    expect(caCertHash(pki.certs.kubernetesCa)).not.toBe(caCertHash(other.certs.kubernetesCa));
  });
});

describe('kubeconfig', () => {
  it('has the shape coe cluster config writes: cluster named after the cluster, user admin, context default', () => {
    const doc = YAML.parse(kubeconfig({
      clusterName: 'k8s-alpha', server: 'https://10.0.0.5:6443', caPem: pki.certs.kubernetesCa, clientCertPem: pki.certs.admin, clientKeyPem: pki.keys.admin,
    }));
    expect(doc).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      preferences: {},
      clusters: [{ name: 'k8s-alpha', cluster: { server: 'https://10.0.0.5:6443', 'certificate-authority-data': Buffer.from(pki.certs.kubernetesCa).toString('base64') } }],
      contexts: [{ name: 'default', context: { cluster: 'k8s-alpha', user: 'admin' } }],
      'current-context': 'default',
      users: [{ name: 'admin', user: { 'client-certificate-data': Buffer.from(pki.certs.admin).toString('base64'), 'client-key-data': Buffer.from(pki.keys.admin).toString('base64') } }],
    });
    const t = YAML.parse(tokenKubeconfig({ clusterName: 'k8s-alpha', server: 'https://10.0.0.5:6443', caPem: 'ca', user: 'vim', token: 'abc.def' }));
    expect(t.users).toEqual([{ name: 'vim', user: { token: 'abc.def' } }]);
    expect(t.contexts[0].context.user).toBe('vim');
  });
});

describe('bootstrap tokens', () => {
  it('are [a-z0-9]{6}.[a-z0-9]{16}, random, with the kube-system Secret kubeadm writes', () => {
    const tokens = Array.from({ length: 200 }, () => newBootstrapToken());
    for (const t of tokens) {
      expect(t.token).toMatch(BOOTSTRAP_TOKEN_PATTERN);
      expect(t.token).toBe(`${t.id}.${t.secret}`);
    }
    expect(new Set(tokens.map((t) => t.token)).size).toBe(200);
    const t = tokens[0];
    const now = new Date('2030-01-02T03:04:05.678Z');
    expect(bootstrapTokenSecret(t, { now })).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `bootstrap-token-${t.id}`, namespace: 'kube-system' },
      type: 'bootstrap.kubernetes.io/token',
      stringData: expect.objectContaining({
        'token-id': t.id,
        'token-secret': t.secret,
        expiration: '2030-01-02T04:04:05Z',
        'usage-bootstrap-authentication': 'true',
        'usage-bootstrap-signing': 'true',
        'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token',
      }),
    });
  });
});

describe('sealPki / openPki', () => {
  it('keeps certificates in clear and every key sealed, and opens back to the same PKI', () => {
    const box = new SecretBox(crypto.randomBytes(32));
    const sealed = sealPki(box, pki);
    const stored = JSON.stringify(sealed);
    for (const key of Object.values(pki.keys)) expect(stored).not.toContain(key.split('\n')[1]);
    expect(sealed.certs).toEqual(pki.certs);
    expect(openPki(box, JSON.parse(stored))).toEqual(pki);
    expect(() => openPki(new SecretBox(crypto.randomBytes(32)), sealed)).toThrow();
  });
});
