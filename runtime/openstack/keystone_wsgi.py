# WSGI entry for gunicorn (keystone_wsgi:application).
# 1. Keystone calls oslo.config CONF() with args=None, i.e. it parses sys.argv;
#    under gunicorn that is gunicorn's own command line -> "unrecognized
#    arguments" and the worker exits with code 2 (restart loop). Reset argv.
# 2. Keystone builds its policy enforcer lazily and publishes it BEFORE its
#    rules are registered: concurrent first requests of a fresh worker get 403
#    (identity:list_roles for an admin). Build it here, before serving.
# 3. SQLite + 4 threads: concurrent writes fail with 'database is locked'
#    (HTTP 500) unless transactions BEGIN IMMEDIATE (sqlite_fix.py).
# 4. Keystone's AuthContextMiddleware keeps the token it validated on itself
#    (self.token), one object for the whole process: with 4 threads a request
#    can be authorised with a concurrent request's token, another user's or the
#    admin's. Kept per thread and cleared as each request starts.
import sys
import threading
sys.argv = sys.argv[:1]
from sqlite_fix import serialize_sqlite_writes  # noqa: E402  (--pythonpath)
serialize_sqlite_writes()
from keystone.server.flask.request_processing.middleware import auth_context as _auth_context  # noqa: E402

_request_token = threading.local()
_Middleware = _auth_context.AuthContextMiddleware
_Middleware.token = property(
    lambda self: getattr(_request_token, 'token', None),
    lambda self, token: setattr(_request_token, 'token', token))
_process_request = _Middleware.process_request


def _process_request_with_its_own_token(self, request):
    _request_token.token = None
    return _process_request(self, request)


_Middleware.process_request = _process_request_with_its_own_token
from keystone.wsgi.api import application  # noqa: E402,F401
from keystone.common.rbac_enforcer import enforcer as _rbac  # noqa: E402

_rbac.RBACEnforcer.suppress_deprecation_warnings = True  # as in a request
_rbac.RBACEnforcer()._enforcer.load_rules()
