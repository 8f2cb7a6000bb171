/** The openssl binary as an independent check of what cluster/pki writes (tests only; the product never shells out to it). */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function openssl(args: string[], input?: string | Buffer): { status: number; stdout: string; stderr: string; raw: Buffer } {
  const r = spawnSync('openssl', args, { input, timeout: 30_000 });
  return { status: r.status ?? -1, stdout: r.stdout?.toString('utf8') ?? '', stderr: r.stderr?.toString('utf8') ?? '', raw: r.stdout ?? Buffer.alloc(0) };
}

/** The text dump of a certificate (`openssl x509 -text`). */
export function certText(pem: string): string {
  const r = openssl(['x509', '-noout', '-text'], pem);
  if (r.status !== 0) throw new Error(`openssl x509: ${r.stderr}`);
  return r.stdout;
}

/**
 * A fresh RSA key and CSR made by `openssl req` with the given subject and
 * `-addext` extensions (none: a CSR like python-magnumclient's).
 */
export function opensslCsr(subject: string, addext: string[] = [], bits = 2048): { csrPem: string; keyPem: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csr-'));
  try {
    const key = path.join(dir, 'key.pem');
    const csr = path.join(dir, 'req.csr');
    const r = openssl(['req', '-new', '-newkey', `rsa:${bits}`, '-nodes', '-sha256', '-keyout', key, '-subj', subject,
      ...addext.flatMap((e) => ['-addext', e]), '-out', csr]);
    if (r.status !== 0) throw new Error(`openssl req: ${r.stderr}`);
    return { csrPem: fs.readFileSync(csr, 'utf8'), keyPem: fs.readFileSync(key, 'utf8') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function inTempDir<T>(files: Record<string, string>, fn: (file: (name: string) => string) => T): T {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openssl-'));
  try {
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
    return fn((name) => path.join(dir, name));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** `openssl verify -CAfile ca [-untrusted intermediate] cert`: true when the chain verifies. */
export function opensslVerifies(caPem: string, certPem: string, o: { purpose?: 'sslclient' | 'sslserver'; untrusted?: string } = {}): boolean {
  return inTempDir({ 'ca.pem': caPem, 'cert.pem': certPem, 'untrusted.pem': o.untrusted ?? '' }, (file) => openssl([
    'verify', ...(o.purpose ? ['-purpose', o.purpose] : []), '-CAfile', file('ca.pem'),
    ...(o.untrusted ? ['-untrusted', file('untrusted.pem')] : []), file('cert.pem'),
  ]).status === 0);
}

/** `openssl x509 -req`: signs a CSR with any certificate and key (to try a certificate as an issuer). */
export function opensslSign(issuerCertPem: string, issuerKeyPem: string, csrPem: string): string {
  return inTempDir({ 'ca.pem': issuerCertPem, 'ca.key': issuerKeyPem, 'req.csr': csrPem }, (file) => {
    const r = openssl(['x509', '-req', '-in', file('req.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-set_serial', '7', '-days', '30', '-sha256']);
    if (r.status !== 0) throw new Error(`openssl x509 -req: ${r.stderr}`);
    return r.stdout;
  });
}
