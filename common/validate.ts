/** zod validation that answers 400 naming every bad field by its JSON path. */
import type { z } from 'zod';

type Issue = { path: PropertyKey[]; message: string; code?: string; errors?: Issue[][] };
import { badRequest } from './http-error';

/** Deeper JSON is refused before validation: stringifying, masking or storing it would recurse out of stack (a 500). */
export const MAX_JSON_DEPTH = 64;

export function formatPath(path: PropertyKey[]): string {
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), '') || '(body)';
}

/** Nesting depth of a JSON value, without recursion (the value may be nested 200k deep); stops once past `limit`. */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (d + 1 > max) max = d + 1;
    if (max > limit) return max;
    for (const x of Array.isArray(v) ? v : Object.values(v)) if (x && typeof x === 'object') stack.push([x, d + 1]);
  }
  return max;
}

export function parse<S extends z.ZodType>(schema: S, value: unknown, what = 'request body', prefix: PropertyKey[] = []): z.infer<S> {
  if (jsonDepth(value) > MAX_JSON_DEPTH) {
    const field = formatPath(prefix);
    throw badRequest(`invalid ${what}: ${field}: nested deeper than ${MAX_JSON_DEPTH} levels`, { invalidParams: [{ field, reason: `nested deeper than ${MAX_JSON_DEPTH} levels` }] });
  }
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = flatten(r.error.issues).map((i) => ({ field: formatPath([...prefix, ...i.path]), reason: i.message }));
  throw badRequest(`invalid ${what}: ${issues.map((i) => `${i.field}: ${i.reason}`).join('; ')}`, { invalidParams: issues });
}

/**
 * A union's "Invalid input" says nothing about which field is wrong: report
 * the issues of the option the value came closest to (the one whose issues
 * reach deepest into it, e.g. the list form of a list-or-map), by full path.
 */
function flatten(issues: readonly Issue[]): Issue[] {
  return issues.flatMap((i) => {
    if (i.code !== 'invalid_union' || !i.errors?.length) return [i];
    const depth = (branch: Issue[]) => Math.max(0, ...branch.map((x) => x.path.length));
    const closest = i.errors.reduce((best, b) => (depth(b) > depth(best) ? b : best));
    if (!closest.length || depth(closest) === 0) return [i];
    return flatten(closest).map((x) => ({ ...x, path: [...i.path, ...x.path] }));
  });
}
