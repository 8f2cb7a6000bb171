/** zod validation that answers 400 naming every bad field by its JSON path. */
import type { z } from 'zod';
import { badRequest } from './errors';

export function formatPath(path: PropertyKey[]): string {
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), '') || '(body)';
}

export function parse<S extends z.ZodType>(schema: S, value: unknown, what = 'request body', prefix: PropertyKey[] = []): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => ({ field: formatPath([...prefix, ...i.path]), reason: i.message }));
  throw badRequest(`invalid ${what}: ${issues.map((i) => `${i.field}: ${i.reason}`).join('; ')}`, { invalidParams: issues });
}
