/**
 * Secrets handling shared by the API, the worker and the logs.
 * - redact(): a copy of any JSON value with secret-looking fields masked and
 *   URL passwords hidden; used for logs, op occ records, API output and the
 *   inputs we hand to Temporal (so history never holds plaintext secrets).
 * - SecretBox: AES-256-GCM for secrets stored in the database.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const MASK = '****';
const SECRET_KEY = /(pass(word|wd)?|secret|token|private_?key|client_?secret|credential)/i;
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/[^:/@\s]+):([^@/\s]+)@/gi;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** Hide the password part of user:password@ in URLs inside a string. */
export function redactString(s: string): string {
  return s.replace(URL_USERINFO, `$1:${MASK}@`);
}

export function redact<T>(value: T): T {
  return walk(value) as T;
}

function walk(v: unknown): unknown {
  if (typeof v === 'string') return redactString(v);
  if (Array.isArray(v)) return v.map(walk);
  if (v && typeof v === 'object' && !(v instanceof Date) && !Buffer.isBuffer(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      out[k] = isSecretKey(k) && x !== null && x !== undefined && typeof x !== 'object' ? MASK : walk(x);
    }
    return out;
  }
  return v;
}

/** Authenticated encryption for secrets at rest; output is "v1:<iv>:<tag>:<data>" base64. */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('secret key must be 32 bytes');
  }

  /** Key from SECRET_KEY (base64) or DATA_DIR/secret.key, generated on first use. */
  static fromEnvOrFile(dataDir: string): SecretBox {
    const fromEnv = process.env.SECRET_KEY;
    if (fromEnv) return new SecretBox(Buffer.from(fromEnv, 'base64'));
    const file = path.join(dataDir, 'secret.key');
    fs.mkdirSync(dataDir, { recursive: true });
    try {
      fs.writeFileSync(file, crypto.randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    return new SecretBox(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64'));
  }

  seal(plain: string): string {
    const iv = crypto.randomBytes(12);
    const c = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return ['v1', iv.toString('base64'), c.getAuthTag().toString('base64'), data.toString('base64')].join(':');
  }

  open(sealed: string): string {
    const [v, iv, tag, data] = sealed.split(':');
    if (v !== 'v1' || !iv || !tag || data === undefined) throw new Error('not a sealed secret');
    const d = crypto.createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    d.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([d.update(Buffer.from(data, 'base64')), d.final()]).toString('utf8');
  }

  sealJson(v: unknown): string {
    return this.seal(JSON.stringify(v));
  }

  openJson<T>(sealed: string): T {
    return JSON.parse(this.open(sealed)) as T;
  }
}
