/**
 * A throw-away PKI for the EM over TLS / mutual TLS (tests, demos): one CA,
 * a server certificate for 127.0.0.1 / localhost and client certificates,
 * all P-256, made with the `openssl` CLI.
 *
 *   npx tsx em/certs.ts <dir> [clientName...]
 *
 * writes ca.crt, ca.key, server.crt, server.key, <client>.crt, <client>.key
 * into <dir> and prints each client certificate's x5t#S256 (the
 * certificateRef value of OAUTH2_CLIENT_CERT).
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { x5tS256 } from './auth';

export interface IssuedCert { cert: string; key: string; certFile: string; keyFile: string; x5tS256: string }

export interface TestPki {
  dir: string;
  ca: IssuedCert;
  server: IssuedCert;
  clients: Record<string, IssuedCert>;
}

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stderr?: Buffer };
    if (err.code === 'ENOENT') throw new Error('the openssl CLI is needed to make certificates and was not found on PATH');
    throw new Error(`openssl ${args[0]} failed: ${err.stderr?.toString().trim() ?? err.message}`);
  }
}

const KEY_ARGS = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function issued(dir: string, name: string): IssuedCert {
  const certFile = path.join(dir, `${name}.crt`);
  const keyFile = path.join(dir, `${name}.key`);
  const cert = fs.readFileSync(certFile, 'utf8');
  return { cert, key: fs.readFileSync(keyFile, 'utf8'), certFile, keyFile, x5tS256: x5tS256(new crypto.X509Certificate(cert).raw) };
}

function sign(dir: string, name: string, cn: string, ext: string, days: number): IssuedCert {
  openssl(['req', ...KEY_ARGS, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`], dir);
  fs.writeFileSync(path.join(dir, `${name}.ext`), ext);
  openssl(
    ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', `0x${crypto.randomBytes(12).toString('hex')}`,
      '-days', String(days), '-sha256', '-extfile', `${name}.ext`, '-out', `${name}.crt`],
    dir,
  );
  fs.rmSync(path.join(dir, `${name}.csr`));
  fs.rmSync(path.join(dir, `${name}.ext`));
  return issued(dir, name);
}

/** Creates (or overwrites) the PKI in `dir`. */
export function generatePki(dir: string, opts: { clients?: string[]; caName?: string; days?: number } = {}): TestPki {
  const days = opts.days ?? 2;
  fs.mkdirSync(dir, { recursive: true });
  for (const n of opts.clients ?? ['client']) {
    if (!/^[A-Za-z0-9_-]+$/.test(n) || n === 'ca' || n === 'server') throw new Error(`bad client certificate name "${n}"`);
  }
  openssl(
    ['req', '-x509', ...KEY_ARGS, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', String(days), '-sha256',
      '-subj', `/CN=${opts.caName ?? 'EM test CA'}`,
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
    dir,
  );
  const ca = issued(dir, 'ca');
  const server = sign(
    dir, 'server', 'localhost',
    'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost\n',
    days,
  );
  const clients: Record<string, IssuedCert> = {};
  for (const n of opts.clients ?? ['client']) {
    clients[n] = sign(dir, n, n, 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n', days);
  }
  return { dir, ca, server, clients };
}

if (require.main === module) {
  const [dir, ...names] = process.argv.slice(2);
  if (!dir) {
    console.error('usage: npx tsx em/certs.ts <dir> [clientName...]');
    process.exit(2);
  }
  const pki = generatePki(path.resolve(dir), { clients: names.length ? names : ['client'], days: 365 });
  console.log(`CA ${pki.ca.certFile}\nserver ${pki.server.certFile} (127.0.0.1, ::1, localhost)`);
  for (const [n, c] of Object.entries(pki.clients)) console.log(`client ${n} ${c.certFile} x5t#S256=${c.x5tS256}`);
}
