/**
 * Secrets handling shared by the API, the worker and the logs.
 * - Masking by schema (common/secret-schema.ts) is the primary mechanism for
 *   request payloads; what is here is the safety net for what no schema
 *   describes (free-form vendor keys, log objects, error texts):
 *   - redact(): a copy of any JSON value with values under secret-looking
 *     keys masked (a whole array or object under such a key too) and URL
 *     credentials hidden in every string;
 *   - redactString(): URL credentials (`scheme://user:password@`) hidden, in
 *     one linear pass (no backtracking regex: request data can be megabytes);
 *   - redactSecrets(): the known secrets of a session (an SSH login's
 *     password, key material) masked wherever they show in a text.
 * - SecretBox: AES-256-GCM for secrets stored in the database.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const MASK = '****';
/** Key names whose values are secrets wherever no schema says otherwise (M5: api_key, ssh_key, authorization, cookie too). */
const SECRET_KEY = /(pass(word|wd|phrase)?|secret|token|private_?key|api_?key|ssh_?key|credential|authorization|cookie|bearer)/i;
/** Deeper than this, redact() masks the rest instead of recursing (a 200k-deep object must not throw). */
const MAX_DEPTH = 100;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** `text` with every occurrence of each non-empty secret replaced by ****
 *  (SSH output, errors and log lines of a session that knows its secrets).
 *  Longer secrets are replaced first so a secret containing another one is
 *  masked whole. */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  const list = [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length > 0))]
    .sort((a, b) => b.length - a.length);
  let out = text;
  for (const s of list) {
    if (out.includes(s)) out = out.split(s).join(MASK);
  }
  return out;
}

/** Characters that end a URL in free text (JSON/log quoting, whitespace). */
const isUrlEnd = (c: number) => c <= 0x20 || c === 0x22 /* " */ || c === 0x27 /* ' */ || c === 0x60 /* ` */ || c === 0x3c /* < */ || c === 0x3e /* > */;
const isSchemeChar = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e;
const isAlpha = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);

/** Start of the scheme ending at `colon` (the ":" of "://"), or -1 when there is none. */
function schemeStart(s: string, colon: number, floor: number): number {
  let i = colon;
  while (i > floor && isSchemeChar(s.charCodeAt(i - 1))) i--;
  while (i < colon && !isAlpha(s.charCodeAt(i))) i++; // a scheme starts with a letter
  return i < colon ? i : -1;
}

/**
 * Hides the password of every `scheme://user:password@host` in `s`. The
 * password runs to the last "@" before the URL ends (whitespace, a quote, or
 * the next URL's scheme), so proxy-style `http://u:pa/ss@h` and
 * `http://u:p@ss@h` are masked whole. Errs on the side of masking:
 * `http://host:80/a@b` shows as `http://host:****@b`. Linear: every
 * character is looked at a bounded number of times.
 */
export function redactString(s: string): string {
  if (typeof s !== 'string' || s.indexOf('://') < 0) return s;
  const out: string[] = [];
  let copied = 0;
  scanUrlPasswords(s, (from, to) => {
    out.push(s.slice(copied, from), MASK);
    copied = to;
  });
  if (copied === 0) return s;
  out.push(s.slice(copied));
  return out.join('');
}

/** The passwords of `scheme://user:password@` URLs in `s`, as [from, to) spans in order (what redactString() hides). */
export function urlPasswordSpans(s: string): { from: number; to: number }[] {
  const spans: { from: number; to: number }[] = [];
  if (s.indexOf('://') >= 0) scanUrlPasswords(s, (from, to) => spans.push({ from, to }));
  return spans;
}

/**
 * One forward pass over `s`: each "://" is the start of a URL whose region
 * runs to the next "://" or the end of its token (whitespace, a quote); the
 * region is then searched for user:password@ (passwordSpan). Every character
 * is visited a bounded number of times.
 */
function scanUrlPasswords(s: string, onSpan: (from: number, to: number) => void): void {
  const n = s.length;
  let tokenStart = 0;
  let sep = -1; // the "://" whose region is open
  let sepHasScheme = false;
  let floor = 0; // a scheme cannot start before this (just after the previous "://")
  const close = (regionEnd: number) => {
    if (sep >= 0 && sepHasScheme) {
      const pw = passwordSpan(s, sep + 3, regionEnd);
      if (pw) onSpan(pw.from, pw.to);
    }
    sep = -1;
  };
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (isUrlEnd(c)) {
      close(i);
      tokenStart = i + 1;
    } else if (c === 0x3a /* : */ && s.charCodeAt(i + 1) === 0x2f && s.charCodeAt(i + 2) === 0x2f) {
      close(i);
      sep = i;
      sepHasScheme = schemeStart(s, i, Math.max(tokenStart, floor)) >= 0;
      floor = i + 3;
      i += 2;
    }
  }
  close(n);
}

/** In s[from, end) = `user:password@host…`: the password's span (to the last "@"), or undefined when there is no user:password@. */
function passwordSpan(s: string, from: number, end: number): { from: number; to: number } | undefined {
  let colon = from;
  for (; colon < end; colon++) {
    const c = s.charCodeAt(colon);
    if (c === 0x3a /* : */) break;
    if (c === 0x2f /* / */ || c === 0x40 /* @ */ || c === 0x3f /* ? */ || c === 0x23 /* # */) return undefined;
  }
  if (colon === from || colon >= end) return undefined;
  let at = end - 1;
  while (at > colon && s.charCodeAt(at) !== 0x40 /* @ */) at--;
  return at > colon + 1 ? { from: colon + 1, to: at } : undefined; // an empty password hides nothing
}

export function redact<T>(value: T): T {
  return walk(value, 0) as T;
}

/** The value under a secret key, masked whole (scalars, arrays and objects alike). */
export function maskedUnderSecretKey(x: unknown): unknown {
  return x === null || x === undefined ? x : MASK;
}

function walk(v: unknown, depth: number): unknown {
  if (typeof v === 'string') return redactString(v);
  if (depth > MAX_DEPTH && v && typeof v === 'object') return MASK;
  if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
  if (v && typeof v === 'object' && !(v instanceof Date) && !Buffer.isBuffer(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = isSecretKey(k) ? maskedUnderSecretKey(x) : walk(x, depth + 1);
    return out;
  }
  return v;
}

/**
 * Authenticated encryption for secrets at rest; output is "v1:<iv>:<tag>:<data>" base64.
 * Rotation: seal() always uses the current key; open() also accepts the
 * previous keys (SECRET_KEY_PREVIOUS), until store/reseal.ts has
 * re-sealed every row under the current one.
 */
export class SecretBox {
  private readonly previous: Buffer[];

  constructor(private readonly key: Buffer, previous: Buffer[] = []) {
    if (key.length !== 32) throw new Error('secret key must be 32 bytes');
    if (previous.some((k) => k.length !== 32)) throw new Error('SECRET_KEY_PREVIOUS: every key must be 32 bytes in base64');
    this.previous = previous;
  }

  /** Key from SECRET_KEY (base64) or DATA_DIR/secret.key, generated on first use; older keys from SECRET_KEY_PREVIOUS (comma-separated base64). */
  static fromEnvOrFile(dataDir: string, env: NodeJS.ProcessEnv = process.env): SecretBox {
    const previous = (env.SECRET_KEY_PREVIOUS ?? '').split(',').map((k) => k.trim()).filter(Boolean).map((k) => Buffer.from(k, 'base64'));
    if (env.SECRET_KEY) return new SecretBox(Buffer.from(env.SECRET_KEY, 'base64'), previous);
    const file = path.join(dataDir, 'secret.key');
    fs.mkdirSync(dataDir, { recursive: true });
    try {
      fs.writeFileSync(file, crypto.randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    return new SecretBox(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64'), previous);
  }

  /** Whether this box has older keys to move rows away from. */
  get rotating(): boolean {
    return this.previous.length > 0;
  }

  /** True when `sealed` opens with the current key (no re-seal needed). */
  isCurrent(sealed: string): boolean {
    try {
      openWith(this.key, sealed);
      return true;
    } catch {
      return false;
    }
  }

  seal(plain: string): string {
    const iv = crypto.randomBytes(12);
    const c = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return ['v1', iv.toString('base64'), c.getAuthTag().toString('base64'), data.toString('base64')].join(':');
  }

  open(sealed: string): string {
    try {
      return openWith(this.key, sealed);
    } catch (e) {
      for (const k of this.previous) {
        try {
          return openWith(k, sealed);
        } catch { /* not this one */ }
      }
      throw e;
    }
  }

  sealJson(v: unknown): string {
    return this.seal(JSON.stringify(v));
  }

  openJson<T>(sealed: string): T {
    return JSON.parse(this.open(sealed)) as T;
  }
}

function openWith(key: Buffer, sealed: string): string {
  const [v, iv, tag, data] = sealed.split(':');
  if (v !== 'v1' || !iv || !tag || data === undefined) throw new Error('not a sealed secret');
  const d = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  d.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([d.update(Buffer.from(data, 'base64')), d.final()]).toString('utf8');
}
