/**
 * SOL013 §5.3 attribute selectors on a list's items: `all_fields`,
 * `fields`, `exclude_fields`, `exclude_default` (paths with "/" reach into
 * objects and arrays of objects). Which attributes a resource leaves out of
 * its lists unless asked, and which of its complex attributes are optional
 * (the only ones a selector may drop), is the resource's own table.
 */
import { badRequest } from '../errors';

export interface SelectorRules {
  /** Complex attributes with minimum cardinality zero: the only ones `fields`/`exclude_fields` drop. */
  optionalComplex: readonly string[];
  /** Left out of a list unless asked for (the SOL document's "default excluded" attributes). */
  defaultExcluded: readonly string[];
}

type Obj = Record<string, unknown>;
const SELECTORS = ['all_fields', 'fields', 'exclude_fields', 'exclude_default'] as const;

function pathsOf(query: Obj, name: string): string[] | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.trim() === '' || v.split(',').some((p) => !/^[A-Za-z_][\w]*(\/[A-Za-z_][\w]*)*$/.test(p))) {
    throw badRequest(`${name}: expected a comma-separated list of attribute paths such as softwareImages or _links/self, got ${JSON.stringify(v).slice(0, 200)}`);
  }
  return v.split(',');
}

/** Removes `path` (a/b/c) from `o`, through arrays of objects on the way. */
function drop(o: unknown, path: string[]): void {
  if (Array.isArray(o)) { o.forEach((x) => drop(x, path)); return; }
  if (!o || typeof o !== 'object') return;
  const [head, ...rest] = path;
  if (rest.length === 0) delete (o as Obj)[head];
  else drop((o as Obj)[head], rest);
}

/**
 * `fields` naming sub-attributes (a/b, a/c/d): within `o` (through arrays of objects), the complex sub-attributes
 * the paths do not name go; simple ones stay. A path that ends here (a plain `a`) keeps everything below it.
 */
function keepOnly(o: unknown, paths: string[][]): void {
  if (Array.isArray(o)) { o.forEach((x) => keepOnly(x, paths)); return; }
  if (!o || typeof o !== 'object' || paths.some((p) => p.length === 0)) return;
  for (const [k, v] of Object.entries(o as Obj)) {
    if (!v || typeof v !== 'object') continue;
    const below = paths.filter((p) => p[0] === k).map((p) => p.slice(1));
    if (below.length === 0) delete (o as Obj)[k];
    else keepOnly(v, below);
  }
}

/** The selectors of a list request, checked: the attribute paths they leave out, and the `fields` asked. */
function selection(query: Obj, rules: SelectorRules): { excluded: string[]; fields?: string[] } {
  const given = SELECTORS.filter((s) => query[s] !== undefined);
  if (given.includes('all_fields') && given.length > 1) throw badRequest(`all_fields cannot be combined with ${given.filter((g) => g !== 'all_fields').join(', ')}`);
  if (given.includes('fields') && given.includes('exclude_fields')) throw badRequest('fields and exclude_fields cannot be combined');
  if (query.all_fields !== undefined && query.all_fields !== '') throw badRequest('all_fields takes no value');
  if (query.exclude_default !== undefined && query.exclude_default !== '') throw badRequest('exclude_default takes no value');
  const fields = pathsOf(query, 'fields');
  const excludeFields = pathsOf(query, 'exclude_fields');
  let excluded: string[];
  if (given.includes('all_fields')) excluded = [];
  else if (fields) {
    // every optional complex attribute not asked for (with exclude_default: only the default-excluded ones)
    const pool = given.includes('exclude_default') ? rules.defaultExcluded : rules.optionalComplex;
    const asked = new Set(fields.map((f) => f.split('/')[0]));
    excluded = pool.filter((a) => !asked.has(a));
  } else if (excludeFields) {
    const optional = new Set(rules.optionalComplex);
    const mandatory = excludeFields.filter((f) => f.includes('/') ? false : !optional.has(f));
    if (mandatory.length) throw badRequest(`exclude_fields: ${mandatory.join(', ')} cannot be excluded (not an optional complex attribute of this resource)`);
    excluded = excludeFields;
  } else excluded = [...rules.defaultExcluded];
  return { excluded, fields };
}

/** The whole attributes a list request's selectors leave out (the store need not read them). */
export function excludedAttributes(query: Obj, rules: SelectorRules): string[] {
  return selection(query, rules).excluded.filter((p) => !p.includes('/'));
}

/** The selectors of a list request, checked: a function that shapes each item (a copy; the item is left as it is). */
export function attributeSelector(query: Obj, rules: SelectorRules): (item: Obj) => Obj {
  const { excluded, fields } = selection(query, rules);
  // fields=a/b: of a, only b among its complex sub-attributes (unless a is asked for whole, too)
  const narrowed = (fields ?? []).filter((f) => f.includes('/')).map((f) => f.split('/'));
  return (item) => {
    if (excluded.length === 0 && narrowed.length === 0) return item;
    const copy = structuredClone(item);
    for (const p of excluded) drop(copy, p.split('/'));
    for (const top of new Set(narrowed.map((p) => p[0]))) {
      if (!fields!.includes(top)) keepOnly(copy[top], narrowed.filter((p) => p[0] === top).map((p) => p.slice(1)));
    }
    return copy;
  };
}
