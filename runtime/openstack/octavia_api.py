"""octavia-api with the `vimsim` provider driver (octavia_provider/), one
process, no RabbitMQ, no driver agent: the provider's sync thread sets the
statuses through the driver agent's own DriverUpdater in-process (the agent
process alone costs ~370 MB). Also: SQLite transactions one thread at a time
(serialize_transactions), and call_provider lets the provider's TenantInputRefused through as a 400 (stock
Octavia turns every driver exception into a 409, 500 or 501).

usage: python octavia_api.py --config-file octavia.conf
"""
import socketserver
import sqlite3
import sys
import threading
import warnings
from wsgiref import simple_server

warnings.simplefilter("ignore")

from octavia_lib.api.drivers import exceptions as lib_exc  # noqa: E402
from oslo_config import cfg  # noqa: E402
from oslo_log import log as logging  # noqa: E402

from octavia.api import app as api_app  # noqa: E402
from octavia.api.drivers import utils as driver_utils  # noqa: E402
from octavia.common import exceptions  # noqa: E402

from octavia_provider.driver import SimulatorProviderDriver  # noqa: E402
from octavia_provider.driver import TenantInputRefused  # noqa: E402

LOG = logging.getLogger('octavia-api')


def serialize_transactions():
    """sqlite_fix.py's BEGIN IMMEDIATE deadlocks Octavia, which opens a second
    session inside a transaction of the same thread (quota checks): one
    transaction per thread at a time instead, re-entrant within a thread, so
    two threads never race from a read to a write lock ('database is
    locked'). WAL lets readers outside the process (none) go on."""
    from sqlalchemy.dialects.sqlite.base import SQLiteDialect
    from sqlalchemy import event
    from sqlalchemy.engine import Engine
    lock = threading.RLock()

    @event.listens_for(Engine, "connect")
    def _pragmas(dbapi_con, rec):
        if isinstance(dbapi_con, sqlite3.Connection):
            dbapi_con.execute("PRAGMA busy_timeout = 60000")
            dbapi_con.execute("PRAGMA journal_mode = WAL")

    @event.listens_for(Engine, "begin")
    def _begin(conn):
        if conn.engine.dialect.name == 'sqlite':
            lock.acquire()
            conn.info['nfv_serialized'] = True

    # released once the commit or rollback is done (the commit event comes
    # before it: a thread let in then would read a snapshot about to be stale)
    for name in ('do_commit', 'do_rollback'):
        def ended(self, dbapi_connection, _original=getattr(SQLiteDialect, name)):
            try:
                _original(self, dbapi_connection)
            finally:
                try:
                    info = dbapi_connection.info
                except (AttributeError, NotImplementedError):
                    info = {}  # the pool's own rollback at a first connect
                if info.pop('nfv_serialized', False):
                    lock.release()
        setattr(SQLiteDialect, name, ended)


def pass_through_refusals():
    original = driver_utils.call_provider

    def call_provider(provider, driver_method, *args, **kwargs):
        refusal = None

        def method(*a, **kw):
            nonlocal refusal
            try:
                return driver_method(*a, **kw)
            except TenantInputRefused as e:
                refusal = e
                # the kind call_provider logs at INFO, not with a traceback
                raise lib_exc.UnsupportedOptionError(
                    user_fault_string=e.msg, operator_fault_string=e.msg)
        try:
            return original(provider, method, *args, **kwargs)
        except exceptions.ProviderUnsupportedOptionError:
            if refusal is not None:
                raise refusal from None
            raise
    driver_utils.call_provider = call_provider


class ThreadingWSGIServer(socketserver.ThreadingMixIn,
                          simple_server.WSGIServer):
    daemon_threads = True
    allow_reuse_address = True


class QuietHandler(simple_server.WSGIRequestHandler):
    def log_message(self, fmt, *args):  # access log -> octavia log at debug
        LOG.debug("%s - %s", self.address_string(), fmt % args)


def main():
    serialize_transactions()
    pass_through_refusals()
    app = api_app.setup_app(argv=sys.argv)
    SimulatorProviderDriver.start_sync()
    conf = cfg.CONF.api_settings
    httpd = simple_server.make_server(conf.bind_host, conf.bind_port, app,
                                      server_class=ThreadingWSGIServer,
                                      handler_class=QuietHandler)
    LOG.info("octavia-api listening on %s:%s", conf.bind_host, conf.bind_port)
    print("octavia-api listening on %s:%s" % (conf.bind_host, conf.bind_port),
          flush=True)
    httpd.serve_forever()


if __name__ == '__main__':
    main()
