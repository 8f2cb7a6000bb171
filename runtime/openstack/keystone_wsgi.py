# WSGI entry for gunicorn (keystone_wsgi:application).
# 1. Keystone calls oslo.config CONF() with args=None, i.e. it parses sys.argv;
#    under gunicorn that is gunicorn's own command line -> "unrecognized
#    arguments" and the worker exits with code 2 (restart loop). Reset argv.
# 2. Keystone builds its policy enforcer lazily and publishes it BEFORE its
#    rules are registered: concurrent first requests of a fresh worker get 403
#    (identity:list_roles for an admin). Build it here, before serving.
# 3. SQLite + 4 threads: concurrent writes fail with 'database is locked'
#    (HTTP 500) unless transactions BEGIN IMMEDIATE (sqlite_fix.py).
import sys
sys.argv = sys.argv[:1]
from sqlite_fix import serialize_sqlite_writes  # noqa: E402  (--pythonpath)
serialize_sqlite_writes()
from keystone.wsgi.api import application  # noqa: E402,F401
from keystone.common.rbac_enforcer import enforcer as _rbac  # noqa: E402

_rbac.RBACEnforcer.suppress_deprecation_warnings = True  # as in a request
_rbac.RBACEnforcer()._enforcer.load_rules()
