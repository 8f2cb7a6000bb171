/**
 * Magnum's list parameters (magnum/api/utils.py, controllers/v1/collection.py):
 * limit (positive, capped at 1000), marker (a uuid of the previous page's last
 * item), sort_key (a field of the resource; default id = creation order) and
 * sort_dir; `next` is given only when a page is full. Sorting is done over
 * the caller's rows (a project's clusters and templates are few).
 */
import { badRequest, conflict, notFound } from '../../common/http-error';
import { isUuidLike } from '../../model/magnum/names';

const MAX_LIMIT = 1000;

export interface Page<T> { items: T[]; next?: string }

export interface ListSpec<T> {
  /** The resource's name in "Cluster <marker> could not be found". */
  what: string;
  /** The collection's URL, for `next` (e.g. http://h/v1/clusters). */
  url: string;
  uuidOf(item: T): string;
  /** Sortable fields and how to read them; `id` is creation order. */
  sortable: Record<string, (item: T) => unknown>;
}

export function paginate<T>(rows: T[], query: Record<string, unknown>, spec: ListSpec<T>): Page<T> {
  const str = (k: string) => (typeof query[k] === 'string' ? (query[k] as string) : undefined);
  let limit: number | undefined;
  if (str('limit') !== undefined) {
    limit = Number(str('limit'));
    if (!Number.isInteger(limit)) throw badRequest(`Invalid input for field/attribute limit. Value: '${str('limit')}'. unable to convert to int.`);
    if (limit <= 0) throw badRequest('Limit must be positive');
    limit = Math.min(limit, MAX_LIMIT);
  }
  const sortKey = str('sort_key') ?? 'id';
  const sortDir = str('sort_dir') ?? 'asc';
  if (sortDir !== 'asc' && sortDir !== 'desc') throw badRequest(`Invalid sort direction: ${sortDir}. Acceptable values are 'asc' or 'desc'`);
  const key = spec.sortable[sortKey];
  if (!key) throw badRequest(`The sort_key value "${sortKey}" is an invalid field for sorting`);
  const sorted = rows.map((r, i) => ({ r, i })).sort((a, b) => {
    const c = compare(key(a.r), key(b.r)) || a.i - b.i;
    return sortDir === 'asc' ? c : -c;
  }).map((x) => x.r);
  let start = 0;
  const marker = str('marker');
  if (marker !== undefined) {
    if (!isUuidLike(marker)) throw badRequest(`Invalid input for field/attribute marker. Value: '${marker}'. Expected a uuid.`);
    const at = sorted.findIndex((r) => spec.uuidOf(r) === marker);
    if (at === -1) throw notFound(`${spec.what} ${marker} could not be found.`);
    start = at + 1;
  }
  const items = limit === undefined ? sorted.slice(start) : sorted.slice(start, start + limit);
  const full = limit !== undefined && items.length === limit && start + limit < sorted.length;
  const next = full ? `${spec.url}?${new URLSearchParams({ sort_key: sortKey, sort_dir: sortDir, limit: String(limit), marker: spec.uuidOf(items[items.length - 1]) })}` : undefined;
  return { items, next };
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : 1;
}

/**
 * A path identifier: by uuid when it looks like one, else by name among what
 * the caller sees; several of that name are a 409 (Magnum's "Multiple ...
 * exist with same name. Please use the ... uuid instead.").
 */
export function resolveIdent<T>(rows: T[], ident: string, o: { what: string; plural: string; uuidOf(r: T): string; nameOf(r: T): string }): T {
  if (isUuidLike(ident)) {
    const hit = rows.find((r) => o.uuidOf(r) === ident.toLowerCase());
    if (hit) return hit;
  }
  const named = rows.filter((r) => o.nameOf(r) === ident);
  if (named.length > 1) throw conflict(`Multiple ${o.plural} exist with same name. Please use the ${o.what.toLowerCase()} uuid instead.`);
  if (named.length === 1) return named[0];
  throw notFound(`${capitalize(o.what)} ${ident} could not be found.`);
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
