"""Give Heat's integer primary keys AUTOINCREMENT on SQLite (idempotent).

Heat's tables declare `id INTEGER PRIMARY KEY` without AUTOINCREMENT. On
SQLite that reuses the id of the newest row once it is deleted; MySQL and
PostgreSQL never reuse ids, and Heat relies on that: a resource replaced by an
update keeps stale references (its attribute data row), whose later delete then
removes the replacement's properties row that was given the same id. From then
on every `resources?nested_depth=N` of the stack answers 404
"ResourcePropertiesData with id ... not found". With AUTOINCREMENT ids are
never reused. Each table is rebuilt the way SQLite documents for schema changes
(new table, copy, drop, rename, indexes again), all in one transaction.

usage: python sqlite_autoincrement.py <heat.db>
"""
import re
import sqlite3
import sys

PK_COLUMN = re.compile(r'\bid INTEGER NOT NULL\b')
PK_CLAUSE = re.compile(r',\s*PRIMARY KEY \(id\)')


def rebuilt_ddl(sql):
    if 'AUTOINCREMENT' in sql.upper():
        return None
    if len(PK_COLUMN.findall(sql)) != 1 or len(PK_CLAUSE.findall(sql)) != 1:
        return None
    return PK_CLAUSE.sub('', PK_COLUMN.sub('id INTEGER PRIMARY KEY AUTOINCREMENT', sql))


def main(db):
    con = sqlite3.connect(db, isolation_level=None)
    con.execute('PRAGMA busy_timeout = 60000')
    con.execute('PRAGMA foreign_keys = OFF')
    con.execute('BEGIN IMMEDIATE')
    changed = []
    try:
        tables = con.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL").fetchall()
        for name, sql in tables:
            ddl = rebuilt_ddl(sql)
            if ddl is None:
                continue
            indexes = [r[0] for r in con.execute(
                "SELECT sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND tbl_name = ? AND sql IS NOT NULL", (name,))]
            tmp = name + '__autoinc'
            con.execute(ddl.replace('CREATE TABLE %s ' % name, 'CREATE TABLE %s ' % tmp, 1)
                        .replace('CREATE TABLE "%s" ' % name, 'CREATE TABLE "%s" ' % tmp, 1))
            con.execute('INSERT INTO "%s" SELECT * FROM "%s"' % (tmp, name))
            con.execute('DROP TABLE "%s"' % name)
            con.execute('ALTER TABLE "%s" RENAME TO "%s"' % (tmp, name))
            for index_sql in indexes:
                con.execute(index_sql)
            changed.append(name)
        con.execute('COMMIT')
    except BaseException:
        con.execute('ROLLBACK')
        raise
    if changed:
        print('AUTOINCREMENT ids for: ' + ', '.join(changed))


if __name__ == '__main__':
    main(sys.argv[1])
