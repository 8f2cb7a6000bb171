/**
 * Neutron's list semantics over record views: any attribute as an equality
 * filter (repeat it for "any of": ?id=a&id=b), fixed_ips=ip_address=X /
 * subnet_id=Y, tags/tags-any/not-tags/not-tags-any, fields= to select
 * attributes, sort_key/sort_dir, limit/marker with a `<collection>_links`
 * next link as neutronclient follows it.
 */
import type { Request } from 'express';
import { badRequest } from '../http/errors';
import { queryInt, queryList, queryString } from '../http/validate';

type View = Record<string, unknown>;

const CONTROL = new Set(['fields', 'limit', 'marker', 'page_reverse', 'sort_key', 'sort_dir', 'tags', 'tags-any', 'not-tags', 'not-tags-any', 'fixed_ips']);

function matchesValue(actual: unknown, wanted: string[]): boolean {
  if (actual === null || actual === undefined) return wanted.includes('') || wanted.includes('None');
  if (Array.isArray(actual)) return actual.some((a) => matchesValue(a, wanted));
  if (typeof actual === 'object') return false;
  return wanted.includes(String(actual)) || (typeof actual === 'boolean' && wanted.map((w) => w.toLowerCase()).includes(String(actual)));
}

function tagList(query: unknown, name: string): string[] | undefined {
  return queryList(query, name)?.flatMap((v) => v.split(','));
}

type FixedIpFilter = { key: 'ip_address' | 'subnet_id' | 'ip_address_substr'; value: string };

function fixedIpFilters(filters: string[]): FixedIpFilter[] {
  return filters.map((f) => {
    const [key, value = ''] = f.split('=', 2);
    if (key !== 'ip_address' && key !== 'subnet_id' && key !== 'ip_address_substr') throw badRequest(`Invalid fixed_ips filter ${f.slice(0, 60)}`);
    return { key, value };
  });
}

function matchesFixedIps(view: View, filters: FixedIpFilter[]): boolean {
  const ips = (view.fixed_ips as { subnet_id: string; ip_address: string }[] | undefined) ?? [];
  return filters.every(({ key, value }) => (key === 'ip_address_substr' ? ips.some((i) => i.ip_address.includes(value)) : ips.some((i) => i[key] === value)));
}

export function filterViews(views: View[], query: Request['query']): View[] {
  let out = views;
  for (const key of Object.keys(query)) {
    if (CONTROL.has(key)) continue;
    const wanted = queryList(query, key) ?? [];
    out = out.filter((v) => !Object.hasOwn(v, key) || matchesValue(v[key], wanted));
  }
  const fixed = queryList(query, 'fixed_ips');
  if (fixed) {
    const filters = fixedIpFilters(fixed);
    out = out.filter((v) => matchesFixedIps(v, filters));
  }
  const tags = tagList(query, 'tags');
  const tagsAny = tagList(query, 'tags-any');
  const notTags = tagList(query, 'not-tags');
  const notTagsAny = tagList(query, 'not-tags-any');
  const has = (v: View, t: string) => ((v.tags as string[] | undefined) ?? []).includes(t);
  if (tags) out = out.filter((v) => tags.every((t) => has(v, t)));
  if (tagsAny) out = out.filter((v) => tagsAny.some((t) => has(v, t)));
  if (notTags) out = out.filter((v) => !notTags.every((t) => has(v, t)));
  if (notTagsAny) out = out.filter((v) => !notTagsAny.some((t) => has(v, t)));
  return out;
}

/** fields=a&fields=b keeps only those attributes (Neutron always keeps none it was not asked for). */
export function selectFields(view: View, query: Request['query']): View {
  const fields = queryList(query, 'fields')?.flatMap((f) => f.split(','));
  if (!fields || fields.length === 0) return view;
  return Object.fromEntries(fields.filter((f) => Object.hasOwn(view, f)).map((f) => [f, view[f]]));
}

function sortViews(views: View[], query: Request['query']): View[] {
  const keys = queryList(query, 'sort_key') ?? [];
  const dirs = queryList(query, 'sort_dir') ?? [];
  if (keys.length === 0) return views;
  return [...views].sort((a, b) => {
    for (const [i, key] of keys.entries()) {
      const x = String(a[key] ?? '');
      const y = String(b[key] ?? '');
      if (x !== y) return (x < y ? -1 : 1) * (dirs[i] === 'desc' ? -1 : 1);
    }
    return 0;
  });
}

/** The list body: {networks: [...], networks_links?: [{rel: next, href}]}. */
export function listBody(collection: string, views: View[], req: Request, baseUrl: string): Record<string, unknown> {
  const query = req.query;
  let items = sortViews(filterViews(views, query), query);
  const marker = queryString(query, 'marker');
  if (marker) {
    const at = items.findIndex((v) => v.id === marker);
    items = at >= 0 ? items.slice(at + 1) : items;
  }
  const limit = queryInt(query, 'limit');
  const body: Record<string, unknown> = {};
  if (limit && items.length > limit) {
    items = items.slice(0, limit);
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (k !== 'marker') for (const x of [v].flat()) if (typeof x === 'string') params.append(k, x);
    params.set('marker', String(items[items.length - 1].id));
    body[`${collection}_links`] = [{ rel: 'next', href: `${baseUrl}/${collection}?${params}` }];
  }
  body[collection] = items.map((v) => selectFields(v, query));
  return body;
}
