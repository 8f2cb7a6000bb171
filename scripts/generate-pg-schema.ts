/**
 * The store's tables are declared once, in the SQLite schema files
 * (store/schema.ts, schema-magnum.ts, schema-notify.ts). Their PostgreSQL
 * twins (schema*-pg.ts) are written from them by this script: same tables,
 * columns, names, indexes and checks, with PostgreSQL's types. A unit test
 * (test/unit/pg-schema-generated.test.ts) fails when a twin differs from
 * what this script writes, so neither can be edited alone.
 *
 *   npm run db:schema:pg      (then npm run db:generate:pg for the migration)
 *
 * The SQLite column kinds and their twins:
 *   text(n, { mode: 'json' })              jsonb(n)
 *   integer(n, { mode: 'boolean' })        boolean(n)
 *   blob(n, { mode: 'buffer' })            bytea(n)
 *   int64(n) (store/columns.ts)        bigint(n, { mode: 'number' })
 *   integer(n).primaryKey({ autoIncrement: true })   serial(n).primaryKey()
 * Anything else (text, integer, indexes, checks, references) is the same
 * call on both. A SQLite-only construct this list does not cover stops the
 * script with its line, rather than writing a twin that drifts.
 */
import fs from 'node:fs';
import path from 'node:path';

const DB_DIR = path.join(__dirname, '..', 'store');

/** The SQLite schema files, each with its twin. */
export const SCHEMA_FILES = ['schema.ts', 'schema-magnum.ts', 'schema-notify.ts'].map((sqlite) => ({
  sqlite: path.join(DB_DIR, sqlite),
  pg: path.join(DB_DIR, sqlite.replace(/\.ts$/, '-pg.ts')),
}));

const NAME = `('[a-z_0-9]+')`;
const COLUMN_TWINS: Array<[RegExp, string]> = [
  [/\bsqliteTable\(/g, 'pgTable('],
  [new RegExp(`\\btext\\(${NAME}, \\{ mode: 'json' \\}\\)`, 'g'), 'jsonb($1)'],
  [new RegExp(`\\binteger\\(${NAME}, \\{ mode: 'boolean' \\}\\)`, 'g'), 'boolean($1)'],
  [new RegExp(`\\bblob\\(${NAME}, \\{ mode: 'buffer' \\}\\)`, 'g'), 'bytea($1)'],
  [new RegExp(`\\bint64\\(${NAME}\\)`, 'g'), "bigint($1, { mode: 'number' })"],
  [new RegExp(`\\binteger\\(${NAME}\\)\\.primaryKey\\(\\{ autoIncrement: true \\}\\)`, 'g'), 'serial($1).primaryKey()'],
  // a schema file's re-exports of the other schema files point at their twins
  [/from '\.\/(schema-[a-z]+)'/g, "from './$1-pg'"],
];

/** What the SQLite side may not leave in a twin. */
const SQLITE_ONLY = /sqlite|mode: 'json'|mode: 'boolean'|mode: 'buffer'|autoIncrement|\bblob\(|\bint64\(/;

const PG_CORE_NAMES = ['bigint', 'boolean', 'check', 'customType', 'index', 'integer', 'jsonb', 'pgTable', 'primaryKey', 'serial', 'text', 'uniqueIndex'];

const BYTEA = "const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });";

/** The PostgreSQL twin of one SQLite schema file's source. */
export function pgTwinOf(source: string, sqliteFile: string): string {
  const header = source.match(/^\/\*\*[\s\S]*?\*\/\n/);
  if (!header) throw new Error(`${sqliteFile}: the file must open with a doc comment`);
  let body = source.slice(header[0].length)
    .replace(/^import \{[^}]*\} from 'drizzle-orm\/sqlite-core';\n/m, '')
    .replace(/^import \{ int64 \} from '\.\/columns';\n/m, '');
  for (const [from, to] of COLUMN_TWINS) body = body.replace(from, to);

  const stray = body.split('\n').findIndex((line) => SQLITE_ONLY.test(line));
  if (stray >= 0) throw new Error(`${sqliteFile}: no PostgreSQL twin for: ${body.split('\n')[stray].trim()}`);

  const usesBytea = /\bbytea\(/.test(body);
  const used = PG_CORE_NAMES.filter((n) => (n === 'customType' ? usesBytea : new RegExp(`(?<![.\\w])${n}\\(`).test(body)));
  const pgImport = `import { ${used.join(', ')} } from 'drizzle-orm/pg-core';`;
  // the pg-core import goes where drizzle-orm's own import is (the first import line)
  const lines = body.split('\n');
  const at = lines.findIndex((l) => l.startsWith("import { sql } from 'drizzle-orm';"));
  lines.splice(at >= 0 ? at + 1 : 0, 0, pgImport);
  if (usesBytea) {
    const lastImport = lines.reduce((last, l, i) => (l.startsWith('import ') ? i : last), 0);
    lines.splice(lastImport + 1, 0, '', BYTEA);
  }

  const base = path.basename(sqliteFile);
  return [
    '/**',
    ` * GENERATED from ${base} by scripts/generate-pg-schema.ts: do not edit.`,
    ` * Edit ${base} and run \`npm run db:schema:pg\`. The PostgreSQL twin of`,
    ` * ${base} (DATABASE_URL=postgres://...): the same tables and columns under the`,
    ' * same names, with PostgreSQL\'s types (jsonb, boolean, bytea, bigint, serial).',
    ' * Row types are checked equal in store-pg.ts. Migrations: drizzle-pg/.',
    ' */',
    ...lines,
  ].join('\n');
}

function main(): void {
  for (const f of SCHEMA_FILES) {
    const twin = pgTwinOf(fs.readFileSync(f.sqlite, 'utf8'), f.sqlite);
    const old = fs.existsSync(f.pg) ? fs.readFileSync(f.pg, 'utf8') : '';
    if (old === twin) continue;
    fs.writeFileSync(f.pg, twin);
    console.log(`wrote ${path.relative(process.cwd(), f.pg)}`);
  }
}

if (require.main === module) main();
