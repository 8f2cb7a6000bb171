/**
 * Secrets marked in the zod schemas of request payloads, and masking by
 * schema: maskBySchema() walks a schema and a value together and masks what
 * the schema marks with secret() (whole value) or secretUrl() (a URL's
 * credentials). secretsBySchema() collects the plaintext secret values (to
 * mask them inside error texts).
 *
 * Parts no schema describes (z.unknown() values, records of unknown, the
 * extra keys of loose objects: vendor keys inside additionalParams) fall
 * back to the key-name safety net of common/secrets.ts: a value under a
 * secret-looking key is masked whole (scalar, array or object). Every string
 * left shown still has URL credentials hidden (redactString).
 *
 * Mark a schema last: `secret(z.string().min(1)).optional()`; a method called
 * on a marked schema (`secret(x).min(1)`) returns a new, unmarked one.
 */
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { isSecretKey, MASK, redact, redactString, urlPasswordSpans } from './secrets';

// Marked schemas carry writeOnly in the OpenAPI document, whichever module builds them first.
extendZodWithOpenApi(z);

type SecretKind = 'whole' | 'url';
const SECRETS = z.registry<{ kind: SecretKind }>();
const MAX_DEPTH = 100;

/** The whole value is a secret (password, private key, client secret). */
export function secret<T extends z.ZodType>(schema: T): T {
  const marked = withOpenApiHint(schema, 'password');
  SECRETS.add(marked, { kind: 'whole' });
  return marked;
}

/** A URL whose user:password@ is a secret (proxy URLs): shown with the password masked. */
export function secretUrl<T extends z.ZodType>(schema: T): T {
  const marked = withOpenApiHint(schema, undefined);
  SECRETS.add(marked, { kind: 'url' });
  return marked;
}

/** writeOnly (and format: password) in the OpenAPI document: never shown back. */
function withOpenApiHint<T extends z.ZodType>(schema: T, format: string | undefined): T {
  const s = schema as T & { openapi?: (m: object) => T };
  return typeof s.openapi === 'function' ? s.openapi({ writeOnly: true, ...(format ? { format } : {}) }) : schema;
}

export function isSecretSchema(schema: z.ZodType): boolean {
  return SECRETS.has(schema);
}

/** A copy of `value` with what `schema` marks as secret masked (and the safety net for what it leaves free-form). */
export function maskBySchema<T>(schema: z.ZodType | undefined, value: T): T {
  return walk(schema, value, undefined, 0, undefined) as T;
}

/** Every plaintext secret in `value` according to `schema` (and the safety net), e.g. to mask them inside error texts. */
export function secretsBySchema(schema: z.ZodType | undefined, value: unknown): string[] {
  const found: string[] = [];
  walk(schema, value, undefined, 0, found);
  return [...new Set(found.filter((s) => s.length > 0))];
}

type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; out?: z.ZodType; getter?: () => z.ZodType; shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType; element?: z.ZodType; valueType?: z.ZodType; options?: z.ZodType[]; left?: z.ZodType; right?: z.ZodType };
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;
const isPlainObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date) && !Buffer.isBuffer(v);

function walk(schema: z.ZodType | undefined, v: unknown, key: string | undefined, depth: number, found: string[] | undefined): unknown {
  if (v === undefined || v === null) return v;
  if (!schema || depth > MAX_DEPTH) return safetyNet(key, v, found);
  const mark = SECRETS.get(schema);
  if (mark) return maskSecret(mark.kind, v, found);
  const d = defOf(schema);
  const next = (s: z.ZodType | undefined, x: unknown, k: string | undefined) => walk(s, x, k, depth + 1, found);
  switch (d.type) {
    case 'optional': case 'nullable': case 'default': case 'prefault': case 'readonly': case 'catch': case 'nonoptional': case 'success':
      return walk(d.innerType, v, key, depth, found);
    case 'pipe': // a transform's input schema describes the value as the caller sent it
      return walk(defOf(d.in!).type === 'transform' ? d.out : d.in, v, key, depth, found);
    case 'lazy':
      return walk(d.getter!(), v, key, depth, found);
    case 'object': {
      if (!isPlainObject(v)) return safetyNet(key, v, found);
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        const field = d.shape![k];
        out[k] = field ? next(field, x, k) : next(d.catchall && defOf(d.catchall).type !== 'never' ? d.catchall : undefined, x, k);
      }
      return out;
    }
    case 'record': {
      if (!isPlainObject(v)) return safetyNet(key, v, found);
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, next(d.valueType, x, k)]));
    }
    case 'array':
      return Array.isArray(v) ? v.map((x) => next(d.element, x, key)) : safetyNet(key, v, found);
    case 'union': {
      const match = d.options!.find((o) => o.safeParse(v).success);
      return match ? walk(match, v, key, depth, found) : safetyNet(key, v, found);
    }
    case 'intersection': // both sides' secrets: mask with one, then the other
      return walk(d.right, walk(d.left, v, key, depth, found), key, depth, found);
    case 'unknown': case 'any':
      return safetyNet(key, v, found);
    default: // a scalar the schema describes: only URL credentials inside strings
      if (typeof v === 'string') collectUrlPasswords(v, found);
      return typeof v === 'string' ? redactString(v) : typeof v === 'object' ? safetyNet(key, v, found) : v;
  }
}

function maskSecret(kind: SecretKind, v: unknown, found: string[] | undefined): unknown {
  if (kind === 'url' && typeof v === 'string') {
    collectUrlPasswords(v, found);
    return redactString(v); // a URL with no credentials stays as it is
  }
  collectStrings(v, found);
  return MASK;
}

/** Free-form data: masked by key name (whole value under a secret key), URL credentials hidden in strings. */
function safetyNet(key: string | undefined, v: unknown, found: string[] | undefined): unknown {
  if (key !== undefined && isSecretKey(key)) return maskSecret('whole', v, found);
  if (found) collectFreeForm(v, found, 0);
  return redact(v);
}

function collectFreeForm(v: unknown, found: string[], depth: number): void {
  if (depth > MAX_DEPTH) return;
  if (typeof v === 'string') collectUrlPasswords(v, found);
  else if (Array.isArray(v)) v.forEach((x) => collectFreeForm(x, found, depth + 1));
  else if (isPlainObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (isSecretKey(k)) collectStrings(x, found);
      else collectFreeForm(x, found, depth + 1);
    }
  }
}

/** Every scalar inside a secret value (a password may be sent as a number or inside an array). */
function collectStrings(v: unknown, found: string[] | undefined, depth = 0): void {
  if (!found || depth > MAX_DEPTH || v === null || v === undefined) return;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') found.push(String(v));
  else if (Array.isArray(v)) v.forEach((x) => collectStrings(x, found, depth + 1));
  else if (isPlainObject(v)) Object.values(v).forEach((x) => collectStrings(x, found, depth + 1));
}

/** The passwords redactString() hides in `s`. */
function collectUrlPasswords(s: string, found: string[] | undefined): void {
  if (!found) return;
  for (const { from, to } of urlPasswordSpans(s)) found.push(s.slice(from, to));
}
