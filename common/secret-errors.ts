/**
 * An op occ's error with every secret of its request masked (title and
 * detail): a failing step may echo a password it was given (an SSH banner,
 * a coordination server's error body).
 */
import type { z } from 'zod';
import { secretsBySchema } from './secret-schema';
import { redact, redactSecrets, redactString } from './secrets';

/** Shorter secrets are not searched for inside texts: masking every "ab" would garble the message and hide little. */
const MIN_SECRET_LENGTH = 3;

export function maskErrorText(text: string, secrets: readonly string[]): string {
  const forms = secrets.filter((s) => s.length >= MIN_SECRET_LENGTH).flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]);
  return redactString(redactSecrets(text, forms));
}

/** `error` (a ProblemDetails) with the request's secrets masked in every string of it. */
export function maskOpError<T>(error: T, schema: z.ZodType | undefined, request: unknown): T {
  if (!error || typeof error !== 'object') return error;
  const secrets = secretsBySchema(schema, request);
  const mask = (v: unknown): unknown => (typeof v === 'string' ? maskErrorText(v, secrets)
    : Array.isArray(v) ? v.map(mask) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mask(x)])) : v);
  return redact(mask(error)) as T;
}
