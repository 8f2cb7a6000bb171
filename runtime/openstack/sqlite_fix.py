"""Make SQLite usable by multi-threaded OpenStack services (Heat's engine,
Keystone under gunicorn with 4 threads).

oslo.db opens SQLite transactions with a plain (deferred) BEGIN; with several
threads writing, read->write lock upgrades fail at once with 'database is
locked' (SQLite does not busy-wait on a lock-upgrade deadlock): Heat resources
end up FAILED, Keystone answers 500. Emit BEGIN IMMEDIATE instead (writers
queue on the busy timeout) and use WAL so readers do not block the writer.
Class-level listeners run before the per-engine ones oslo.db installs; the
'in_transaction' marker is oslo.db's own (it skips its BEGIN and clears the
marker on commit/rollback). Other databases (PostgreSQL) are left alone.
"""


def serialize_sqlite_writes():
    import sqlite3
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    @event.listens_for(Engine, "connect")
    def _pragmas(dbapi_con, rec):
        if isinstance(dbapi_con, sqlite3.Connection):
            dbapi_con.execute("PRAGMA busy_timeout = 60000")
            dbapi_con.execute("PRAGMA journal_mode = WAL")

    @event.listens_for(Engine, "begin")
    def _begin_immediate(conn):
        if (conn.engine.dialect.name == 'sqlite'
                and "in_transaction" not in conn.info):
            conn.exec_driver_sql("BEGIN IMMEDIATE")
            conn.info["in_transaction"] = True
