/**
 * Request bodies checked the way WSME checks Magnum's types, with the same
 * texts: an unknown attribute, a read-only one, a missing mandatory one, a
 * wrong value, each a 400 naming the field. JSON null counts as absent (the
 * client sends many). The zod schema (model/magnum) is the only definition.
 */
import type { z } from 'zod';
import { badRequest } from '../../common/http-error';
import { jsonDepth, MAX_JSON_DEPTH } from '../../common/validate';

export interface BodyRules {
  /** WSME's argument name in "Unknown attribute for argument <resource>". */
  resource: string;
  readOnly?: readonly string[];
}

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v) ?? 'None').slice(0, 200);

/** The body without its nulls, checked against the schema. */
export function magnumBody<S extends z.ZodObject>(schema: S, body: unknown, rules: BodyRules): z.infer<S> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest(`Invalid input for ${rules.resource}: the body must be a JSON object.`);
  if (jsonDepth(body) > MAX_JSON_DEPTH) throw badRequest(`Invalid input for ${rules.resource}: nested deeper than ${MAX_JSON_DEPTH} levels.`);
  const given = Object.fromEntries(Object.entries(body as Record<string, unknown>).filter(([, v]) => v !== null));
  const known = Object.keys(schema.shape);
  const readOnly = (rules.readOnly ?? []).filter((k) => k in given);
  if (readOnly.length) throw badRequest(`Invalid input for field/attribute ${readOnly[0]}. Value: '${show(given[readOnly[0]])}'. Cannot set read only field.`);
  const unknown = Object.keys(given).filter((k) => !known.includes(k));
  if (unknown.length) throw badRequest(`Unknown attribute for argument ${rules.resource}: ${unknown.join(', ')}`);
  const r = schema.safeParse(given);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const field = issue.path.map(String).join('.') || rules.resource;
  const top = String(issue.path[0] ?? '');
  if (!(top in given)) throw badRequest(`Invalid input for field/attribute ${field}. Value: 'None'. Mandatory field missing.`);
  throw badRequest(`Invalid input for field/attribute ${field}. Value: '${show(given[top])}'. ${reasonOf(issue)}`);
}

function reasonOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') return `Wrong type. Expected '${issue.expected}'.`;
  if (issue.code === 'invalid_value') return `Value should be one of: ${issue.values.map(String).join(', ')}.`;
  return issue.message.endsWith('.') ? issue.message : `${issue.message}.`;
}

const TRUE = ['true', '1', 'yes', 'y', 'on', 't'];
const FALSE = ['false', '0', 'no', 'n', 'off', 'f', ''];

/** A boolean query parameter (`?rollback=True`) as WSME reads one; anything else is a 400 naming it, not a silent false. */
export function magnumBoolQuery(value: unknown, name: string): boolean {
  const v = value === undefined ? '' : Array.isArray(value) || typeof value !== 'string' ? undefined : value.toLowerCase();
  if (v !== undefined && TRUE.includes(v)) return true;
  if (v !== undefined && FALSE.includes(v)) return false;
  throw badRequest(`Invalid input for field/attribute ${name}. Value: '${show(value)}'. Unrecognized value '${show(value)}', acceptable values are: '0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', 'yes'`);
}
