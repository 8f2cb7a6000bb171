/**
 * The store's tables are declared once (the SQLite schema files); their
 * PostgreSQL twins are what scripts/generate-pg-schema.ts writes from them.
 * A hand edit of a twin, or a SQLite change without `npm run db:schema:pg`,
 * fails here.
 */
import fs from 'node:fs';
import { pgTwinOf, SCHEMA_FILES } from '../../scripts/generate-pg-schema';

describe('the PostgreSQL schema twins', () => {
  it.each(SCHEMA_FILES.map((f) => [f.pg.replace(/.*\/store\//, 'store/'), f]))('%s is generated from its SQLite file', (_name, f) => {
    expect(fs.readFileSync(f.pg, 'utf8')).toBe(pgTwinOf(fs.readFileSync(f.sqlite, 'utf8'), f.sqlite));
  });

  it('translates each SQLite column kind to its PostgreSQL type', () => {
    const twin = pgTwinOf([
      '/** t */',
      "import { sql } from 'drizzle-orm';",
      "import { sqliteTable, text, integer, blob } from 'drizzle-orm/sqlite-core';",
      "import { int64 } from './columns';",
      "export const t = sqliteTable('t', {",
      "  id: integer('id').primaryKey({ autoIncrement: true }),",
      "  on: integer('on', { mode: 'boolean' }).notNull(),",
      "  doc: text('doc', { mode: 'json' }).$type<string[]>(),",
      "  bytes: blob('bytes', { mode: 'buffer' }),",
      "  at: int64('at').notNull(),",
      "  n: integer('n'),",
      '});',
      "export { u } from './schema-magnum';",
    ].join('\n'), 'schema-x.ts');
    expect(twin).toContain("import { bigint, boolean, customType, integer, jsonb, pgTable, serial } from 'drizzle-orm/pg-core';");
    expect(twin).toContain("id: serial('id').primaryKey(),");
    expect(twin).toContain("on: boolean('on').notNull(),");
    expect(twin).toContain("doc: jsonb('doc').$type<string[]>(),");
    expect(twin).toContain("bytes: bytea('bytes'),");
    expect(twin).toContain("at: bigint('at', { mode: 'number' }).notNull(),");
    expect(twin).toContain("n: integer('n'),");
    expect(twin).toContain("export { u } from './schema-magnum-pg';");
    expect(twin.slice(twin.indexOf('*/'))).not.toMatch(/sqlite|int64|'.\/columns'/);
  });

  it('refuses a SQLite-only construct it has no twin for, naming it', () => {
    const source = "/** t */\nimport { sqliteTable, real } from 'drizzle-orm/sqlite-core';\nexport const t = sqliteTable('t', { r: text('r', { mode: 'json', length: 4 }) });\n";
    expect(() => pgTwinOf(source, 'schema-x.ts')).toThrow("schema-x.ts: no PostgreSQL twin for: export const t = pgTable('t', { r: text('r', { mode: 'json', length: 4 }) });");
  });
});
