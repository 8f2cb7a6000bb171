/** Request body and query validation with zod: a hostile or broken body is a 400, never a crash. */
import { z } from 'zod';
import { badRequest } from './errors';

export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue.path.length > 0 ? issue.path.join('.') : 'request body';
  throw badRequest(`Invalid input for field/attribute ${where}. ${issue.message}`);
}

/** One query parameter as a string (repeated parameters: the last one, as webob's GET.get does). */
export function queryString(query: unknown, name: string): string | undefined {
  const v = (query as Record<string, unknown> | undefined)?.[name];
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string').pop();
  return undefined;
}

/** Every value of a repeatable query parameter (Neutron: ?id=a&id=b). */
export function queryList(query: unknown, name: string): string[] | undefined {
  const v = (query as Record<string, unknown> | undefined)?.[name];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return undefined;
}

/** A non-negative integer query parameter (limit=...): a 400 when it is not one. */
export function queryInt(query: unknown, name: string, max = 10_000): number | undefined {
  const v = queryString(query, name);
  if (v === undefined) return undefined;
  if (!/^\d{1,9}$/.test(v)) throw badRequest(`Invalid value for ${name}: ${v.slice(0, 50)}`);
  return Math.min(Number(v), max);
}

/** A path parameter as a string (Express 5 types them as string | string[]). */
export function param(req: { params: Record<string, string | string[] | undefined> }, name: string): string {
  const v = req.params[name];
  return Array.isArray(v) ? v.join('/') : (v ?? '');
}
