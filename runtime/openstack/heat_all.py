"""heat-all: Heat API (OpenStack v1, WSGI) + heat-engine in ONE process.

openstack-heat 27 ships no `heat-all`/`heat-api` console scripts any more
(only heat-engine, heat-manage, heat-status and the heat-wsgi-api WSGI
script), and heat-engine's oslo.service launcher always forks via cotyledon.
With transport_url = fake:/ the API and the engine must share one process,
so this starts EngineService.start() directly (threads) and serves the paste
app with a threaded wsgiref server. Also: the SQLite write fix
(sqlite_fix.py), HEAT_TASK_SLEEP_SCALE for tests, and at start the reset of
stacks a killed engine left IN_PROGRESS (fail_orphaned_convergence_stacks).

usage: python heat_all.py --config-file heat.conf [--bind 127.0.0.1] [--port 8004]
"""
import argparse
import socketserver
import sys
import warnings
from wsgiref import simple_server

warnings.simplefilter("ignore")

from oslo_service import backend  # noqa: E402
backend.init_backend(backend.BackendType.THREADING)

from oslo_config import cfg  # noqa: E402
import oslo_i18n as i18n  # noqa: E402
from oslo_log import log as logging  # noqa: E402

from heat.common import config  # noqa: E402
from heat.common import messaging  # noqa: E402
from heat.common import profiler  # noqa: E402
from heat.engine import template  # noqa: E402
from heat.rpc import api as rpc_api  # noqa: E402
from heat import version  # noqa: E402

from sqlite_fix import serialize_sqlite_writes  # noqa: E402  (next to this file)


def scale_task_sleep():
    """Optional, for tests: HEAT_TASK_SLEEP_SCALE=0.05 shrinks the engine's
    fixed waits: Stack.converge_stack() sleeps 1 s after triggering EACH leaf
    resource (so N independent resources take ~N s), TaskRunner sleeps 1 s
    between resource task steps (check_*_complete polling), and a resource
    action that failed is retried (action_retry_limit, 5) after 2^n s of
    backoff (2+4+8+16+32 s before a failed create is final)."""
    import os
    import time
    scale = float(os.environ.get('HEAT_TASK_SLEEP_SCALE', '1'))
    if scale == 1:
        return
    from heat.engine import scheduler

    def _sleep(self, wait_time):
        if scheduler.ENABLE_SLEEP and wait_time is not None:
            time.sleep(wait_time * scale)
    scheduler.TaskRunner._sleep = _sleep

    from heat.common import timeutils
    backoff = timeutils.retry_backoff_delay
    timeutils.retry_backoff_delay = (
        lambda attempt, scale_factor=1.0, jitter_max=0.0:
        backoff(attempt, scale_factor * scale, jitter_max * scale))

    import types
    from heat.engine import stack as stack_mod
    shim = types.SimpleNamespace(
        **{k: getattr(time, k) for k in dir(time) if not k.startswith('_')})
    shim.sleep = lambda secs: time.sleep(secs * scale)
    stack_mod.time = shim


def serialize_ast_parse():
    """CPython 3.11 keeps the AST constructor's recursion depth in state that
    all threads share (gh-106905): two threads parsing at once can fail one
    of them with "SystemError: AST constructor recursion depth mismatch".
    The engine's threads parse a sync point's keys with ast.literal_eval at
    each resource check, and a check that fails so leaves its stack
    IN_PROGRESS for good (seen with 20 stack updates at once). One lock
    around ast.parse (which literal_eval calls) keeps parses apart."""
    import ast
    import threading
    lock = threading.Lock()
    parse = ast.parse

    def serialized_parse(*args, **kwargs):
        with lock:
            return parse(*args, **kwargs)
    ast.parse = serialized_parse


def release_finished_threads():
    """Heat 27's engine ThreadGroup (heat/engine/service.py, the threading
    port of the eventlet one) keeps every thread it started in the stack's
    group until the stack is deleted: nothing calls thread_done when one
    ends, as oslo.service's own threading ThreadGroup does. Each finished
    thread holds its arguments, a request context with its keystoneauth
    sessions and their sockets, so a live stack kept ~13 descriptors and
    ~25 contexts per operation; after ~3,000 stack operations the process
    ran out of descriptors and SQLite could not open heat.db any more.
    Here an ended thread leaves its group, as in oslo.service."""
    from heat.engine import service
    add_thread = service.ThreadGroup.add_thread

    def add_and_release(self, func, *args, **kwargs):
        th = add_thread(self, func, *args, **kwargs)
        th.link(lambda ended: self.thread_done(ended))
        return th
    service.ThreadGroup.add_thread = add_and_release


def fail_orphaned_convergence_stacks():
    """Stock Heat resets stacks left IN_PROGRESS by a dead engine only for the
    legacy engine (EngineService.reset_stack_status filters convergence=False):
    a convergence stack whose engine was killed stays IN_PROGRESS until someone
    updates or deletes it. This launcher is the ONLY engine of its database
    (never run two on one DB), so at start every IN_PROGRESS stack is such an
    orphan: mark it and its IN_PROGRESS resources FAILED with the reason the
    legacy path uses, before the API answers."""
    from heat.common import context
    from heat.engine import stack as parser
    from heat.objects import resource as resource_objects
    from heat.objects import stack as stack_object
    cnxt = context.get_admin_context()
    stacks = stack_object.Stack.get_all(
        cnxt, filters={'status': parser.Stack.IN_PROGRESS,
                       'convergence': True},
        show_nested=True, show_hidden=True)
    for s in stacks:
        try:
            stk = parser.Stack.load(cnxt, stack=s)
            reason = 'Engine went down during stack %s' % stk.action
            for _ in range(100):  # rows come back as a dict keyed by name
                rows = resource_objects.Resource.get_all_by_stack(
                    cnxt, stk.id, filters={'status': 'IN_PROGRESS'})
                if not rows:
                    break
                for r in rows.values():
                    resource_objects.Resource.update_by_id(
                        cnxt, r.id, {'status': 'FAILED', 'engine_id': None,
                                     'status_reason': reason})
            stk.state_set(stk.action, stk.FAILED, reason)
            LOG.warning('stack %s (%s) was %s_IN_PROGRESS when the engine '
                        'went down: now FAILED', stk.name, stk.id, stk.action)
        except Exception:
            LOG.exception('could not reset orphaned stack %s', s.id)


class ThreadingWSGIServer(socketserver.ThreadingMixIn,
                          simple_server.WSGIServer):
    daemon_threads = True
    allow_reuse_address = True


class QuietHandler(simple_server.WSGIRequestHandler):
    def log_message(self, fmt, *args):  # access log -> heat log at debug
        LOG.debug("%s - %s", self.address_string(), fmt % args)


def main():
    global LOG
    ap = argparse.ArgumentParser()
    ap.add_argument('--bind', default='127.0.0.1')
    ap.add_argument('--port', type=int, default=8004)
    ns, rest = ap.parse_known_args()

    serialize_sqlite_writes()
    serialize_ast_parse()
    release_finished_threads()
    scale_task_sleep()
    i18n.enable_lazy()
    CONF = cfg.CONF
    logging.register_options(CONF)
    # prog 'heat-api' selects [composite:heat-api] in api-paste.ini
    CONF(rest, project='heat', prog='heat-api',
         version=version.version_info.version_string())
    logging.setup(CONF, 'heat-all')
    LOG = logging.getLogger('heat-all')
    config.set_config_defaults()
    messaging.setup()
    config.startup_sanity_check()
    mgr = template._get_template_extension_manager()
    if not mgr or not mgr.names():
        sys.exit("ERROR: No template format plugins registered")
    profiler.setup('heat-all', CONF.host)

    from heat.engine import service as engine
    srv = engine.EngineService(CONF.host, rpc_api.ENGINE_TOPIC)
    srv.start()
    LOG.info("engine started (engine_id %s)", srv.engine_id)
    fail_orphaned_convergence_stacks()

    app = config.load_paste_app('heat-api')
    httpd = simple_server.make_server(ns.bind, ns.port, app,
                                      server_class=ThreadingWSGIServer,
                                      handler_class=QuietHandler)
    LOG.info("heat-api listening on %s:%s", ns.bind, ns.port)
    print("heat-all listening on %s:%s" % (ns.bind, ns.port), flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        srv.stop()


if __name__ == '__main__':
    main()
