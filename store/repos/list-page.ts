/**
 * One page of an owned list, filtered in SQL (SOL013 §5.2 and §5.4): the
 * filter's terms compiled to conditions on the resource's columns (or on a
 * path inside one of its JSON object columns), keyset paging on (created,
 * id) so that rows inserted while a client pages never shift a page (no row
 * seen twice, none that existed skipped). Nothing is loaded to be filtered
 * in JavaScript; the indexes on (project_id, <created>, id) serve the order.
 * The columns of what the attribute selectors leave out, and of what no list
 * shows, are not read.
 */
import { and, asc, eq, getTableColumns, gt, or, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Dialect, SqlStore, Tables } from '../sql-store';

export const FILTER_OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'cont', 'ncont', 'in', 'nin'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** One term of a filter: (op,a/b,value[,value...]). */
export interface FilterTerm { op: FilterOp; path: string[]; values: string[] }

/** How a resource's attribute is stored: a text column, a boolean, or a JSON object whose members a path reaches. */
export type AttributeColumn = { kind: 'text' | 'bool' | 'json'; column: (t: Tables) => SQLiteColumn };

export const text = (column: AttributeColumn['column']): AttributeColumn => ({ kind: 'text', column });
export const bool = (column: AttributeColumn['column']): AttributeColumn => ({ kind: 'bool', column });
export const json = (column: AttributeColumn['column']): AttributeColumn => ({ kind: 'json', column });

/** A resource's table, its attributes that filters reach, and the columns of its order. */
export interface ListSpec {
  table: (t: Tables) => SQLiteTable;
  attributes: Record<string, AttributeColumn>;
  /** The row property of the creation time (ISO text) the list is ordered by, then the id. */
  created: string;
  /** Row properties no list shows (sealed secrets, parsed models): never read for a list, given these values. */
  unlisted?: Record<string, unknown>;
  /** Per attribute the attribute selectors may leave out: the row properties then not read, and the values they take. */
  omittable?: Record<string, Record<string, unknown>>;
}

/** Where the previous page ended. */
export interface Cursor { created: string; id: string }

/** `omit`: the attributes the selectors leave out (their columns are not read). */
export interface PageRequest { terms: FilterTerm[]; limit: number; after?: Cursor; omit?: string[] }

/** A path a spec cannot filter on, named as the request wrote it. */
export class NotFilterable extends Error {}

/** Why `path` cannot be filtered on by `op` under `spec`, or undefined when it can. */
export function unfilterable(spec: ListSpec, term: FilterTerm): string | undefined {
  const attr = spec.attributes[term.path[0]];
  const name = term.path.join('/');
  if (!attr) return `${name} is not an attribute this list filters on (${Object.keys(spec.attributes).join(', ')}, and members of its JSON objects)`;
  if (attr.kind !== 'json' && term.path.length > 1) return `${term.path[0]} has no members to reach with ${name}`;
  if (attr.kind === 'json' && term.path.length === 1) return `${name} is an object: filter on one of its members (${name}/<key>)`;
  if (attr.kind === 'bool' && !['eq', 'neq', 'in', 'nin'].includes(term.op)) return `${name} is a boolean: only eq, neq, in and nin apply`;
  if (attr.kind === 'bool' && term.values.some((v) => v !== 'true' && v !== 'false')) return `${name} is a boolean: true or false`;
  if (term.path.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) return `${name}: a path segment holds characters other than letters, digits, _ and -`;
  return undefined;
}

/** The attribute's value as SQL text (null where absent). */
function valueOf(dialect: Dialect, t: Tables, attr: AttributeColumn, path: string[]): SQL {
  const column = attr.column(t);
  if (attr.kind !== 'json') return sql`${column}`;
  const members = path.slice(1);
  if (dialect === 'postgres') return sql`(${column} #>> ${`{${members.join(',')}}`})`;
  return sql`CAST(json_extract(${column}, ${`$.${members.map((m) => `"${m}"`).join('.')}`}) AS TEXT)`;
}

function boolParam(dialect: Dialect, v: string): boolean | number {
  return dialect === 'postgres' ? v === 'true' : v === 'true' ? 1 : 0;
}

/** One term as a condition. The negations (neq, nin, ncont) also hold where the attribute is absent, as SOL013 reads. */
function conditionOf(dialect: Dialect, t: Tables, spec: ListSpec, term: FilterTerm): SQL {
  const attr = spec.attributes[term.path[0]];
  const why = unfilterable(spec, term);
  if (why) throw new NotFilterable(why);
  const v = valueOf(dialect, t, attr, term.path);
  const p = (x: string) => (attr.kind === 'bool' ? boolParam(dialect, x) : x);
  const list = (xs: string[]) => sql.join(xs.map((x) => sql`${p(x)}`), sql`, `);
  const contains = (x: string) => (dialect === 'postgres' ? sql`strpos(${v}, ${x}) > 0` : sql`instr(${v}, ${x}) > 0`);
  const [first] = term.values;
  switch (term.op) {
    case 'eq': return sql`${v} = ${p(first)}`;
    case 'neq': return sql`(${v} IS NULL OR ${v} <> ${p(first)})`;
    case 'gt': return sql`${v} > ${first}`;
    case 'gte': return sql`${v} >= ${first}`;
    case 'lt': return sql`${v} < ${first}`;
    case 'lte': return sql`${v} <= ${first}`;
    case 'in': return sql`${v} IN (${list(term.values)})`;
    case 'nin': return sql`(${v} IS NULL OR ${v} NOT IN (${list(term.values)}))`;
    case 'cont': return sql`(${sql.join(term.values.map(contains), sql` OR `)})`;
    case 'ncont': return sql`(${v} IS NULL OR NOT (${sql.join(term.values.map(contains), sql` OR `)}))`;
  }
}

/** Rows of one page (at most `limit`), and where the next starts when there is more. */
export async function listPage<Row>(store: SqlStore, spec: ListSpec, where: (t: Tables) => SQL | undefined, page: PageRequest): Promise<{ rows: Row[]; next?: Cursor }> {
  return store.read(async ({ db, t, dialect }) => {
    const table = spec.table(t);
    const columns = getTableColumns(table);
    const created = columns[spec.created];
    const id = columns.id;
    const after = page.after ? or(gt(created, page.after.created), and(eq(created, page.after.created), gt(id, page.after.id))) : undefined;
    const conditions = [where(t), after, ...page.terms.map((term) => conditionOf(dialect, t, spec, term))];
    const unread: Record<string, unknown> = { ...spec.unlisted };
    for (const attr of page.omit ?? []) Object.assign(unread, spec.omittable?.[attr]);
    const read = Object.fromEntries(Object.entries(columns).filter(([k]) => !(k in unread)));
    const found = await db.select(read).from(table).where(and(...conditions)).orderBy(asc(created), asc(id)).limit(page.limit + 1) as Record<string, unknown>[];
    const rows = found.map((r) => ({ ...r, ...unread }));
    if (rows.length <= page.limit) return { rows: rows as Row[] };
    const last = rows[page.limit - 1];
    return { rows: rows.slice(0, page.limit) as Row[], next: { created: String(last[spec.created]), id: String(last.id) } };
  });
}
