/**
 * A list request of the ETSI APIs (SOL013 §5.2 filter, §5.4 paging): the
 * filter parsed and checked against what the resource's list filters on
 * (a malformed or unknown term is a 400 naming it), the page marker
 * decoded, the page size the server's; then the page answered with its
 * `Link: <...>; rel="next"` (the same query, the marker of where this page
 * ended). The store evaluates the filter in SQL (store/repos/list-page.ts).
 */
import type { Request, Response } from 'express';
import { FILTER_OPS, unfilterable, type Cursor, type FilterOp, type FilterTerm, type ListSpec, type PageRequest } from '../../store/repos/list-page';
import { badRequest } from '../errors';
import { ListQuery } from '../schemas/list-query';
import { excludedAttributes, type SelectorRules } from './selectors';

/** Splits `s` on `sep` outside single quotes; quoted parts unquoted ('' is a quote). */
function splitQuoted(s: string, sep: string, what: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  let wasQuoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quoted) {
      if (c === "'" && s[i + 1] === "'") { cur += "'"; i++; } else if (c === "'") quoted = false; else cur += c;
    } else if (c === "'" && cur === '' && !wasQuoted) { quoted = true; wasQuoted = true; } else if (c === sep) { out.push(cur); cur = ''; wasQuoted = false; } else cur += c;
  }
  if (quoted) throw badRequest(`filter: unterminated quote in ${what}`);
  out.push(cur);
  return out;
}

/** `(op,attr/path,value[,value...])` terms separated by ";": SOL013 §5.2.2. */
export function parseFilter(expr: string): FilterTerm[] {
  if (expr.length > 4096) throw badRequest('filter: longer than 4096 characters');
  const terms: FilterTerm[] = [];
  let rest = expr;
  while (rest.length) {
    // a term ends at the first ")" outside quotes
    let end = -1;
    let quoted = false;
    for (let i = 0; i < rest.length; i++) {
      if (rest[i] === "'") quoted = !quoted;
      else if (rest[i] === ')' && !quoted) { end = i; break; }
    }
    const text = end < 0 ? rest : rest.slice(0, end + 1);
    if (!text.startsWith('(') || end < 0) throw badRequest(`filter: cannot parse "${text.slice(0, 200)}"; expected (op,attribute,value[,value...]) terms separated by ";"`);
    const [op, attr, ...values] = splitQuoted(text.slice(1, -1), ',', `"${text.slice(0, 200)}"`);
    if (!(FILTER_OPS as readonly string[]).includes(op)) throw badRequest(`filter: unsupported operator "${op.slice(0, 40)}" in "${text.slice(0, 200)}" (${FILTER_OPS.join(', ')})`);
    if (!attr || !/^[^/]+(\/[^/]+)*$/.test(attr)) throw badRequest(`filter: "${text.slice(0, 200)}" names no attribute`);
    if (values.length === 0) throw badRequest(`filter: "${text.slice(0, 200)}" has no value`);
    if (values.length > 1 && !['in', 'nin', 'cont', 'ncont'].includes(op)) throw badRequest(`filter: ${op} takes one value, "${text.slice(0, 200)}" has ${values.length}`);
    terms.push({ op: op as FilterOp, path: attr.split('/'), values });
    rest = rest.slice(end + 1);
    if (rest.startsWith(';')) rest = rest.slice(1);
    else if (rest.length) throw badRequest(`filter: expected ";" after "${text.slice(0, 200)}"`);
  }
  return terms;
}

const MARKER = 'nextpage_opaque_marker';

function decodeMarker(v: unknown): Cursor | undefined {
  if (v === undefined) return undefined;
  try {
    const [created, id] = JSON.parse(Buffer.from(String(v), 'base64url').toString('utf8')) as unknown[];
    if (typeof created === 'string' && typeof id === 'string') return { created, id };
  } catch { /* answered below */ }
  throw badRequest(`${MARKER}: not a marker this server gave`);
}

const encodeMarker = (c: Cursor) => Buffer.from(JSON.stringify([c.created, c.id])).toString('base64url');

/**
 * The page a list request asks for: its filter (plus the plain `?attribute=value` the resource allows, as eq
 * terms), checked against `spec`; its marker; `pageSize` rows at most; with the resource's selector rules, the
 * attributes its selectors leave out (their columns are not read).
 */
export function pageRequest(query: Request['query'], spec: ListSpec, pageSize: number, o: { plainFields?: string[]; selectors?: SelectorRules } = {}): PageRequest {
  const checked = ListQuery.safeParse(query);
  if (!checked.success) throw badRequest(checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  const terms = checked.data.filter !== undefined ? parseFilter(checked.data.filter) : [];
  for (const f of o.plainFields ?? []) if (typeof query[f] === 'string') terms.push({ op: 'eq', path: [f], values: [query[f] as string] });
  for (const term of terms) {
    const why = unfilterable(spec, term);
    if (why) throw badRequest(`filter: ${why}`);
  }
  return { terms, limit: pageSize, after: decodeMarker(query[MARKER]), ...(o.selectors ? { omit: excludedAttributes(query, o.selectors) } : {}) };
}

/** The page's items, with the link to the next page when there is one (the request's own query, the new marker). */
export function sendPage(req: Request, res: Response, apiBaseUrl: string, items: unknown[], next: Cursor | undefined): void {
  if (next) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(req.query)) {
      if (k === MARKER) continue;
      for (const x of Array.isArray(v) ? v : [v]) if (typeof x === 'string') params.append(k, x);
    }
    params.set(MARKER, encodeMarker(next));
    res.set('Link', `<${apiBaseUrl.replace(/\/+$/, '')}${req.baseUrl}${req.path}?${params}>; rel="next"`);
  }
  res.json(items);
}
