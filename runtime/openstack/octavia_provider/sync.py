"""One thread in the octavia-api process that does what Octavia's controller
worker and driver agent would: after the API's transaction has committed
(the provider is called inside it), it PUTs the load balancer's graph to the
simulator and sets the statuses with DriverUpdater (the driver agent's own
code, in-process). Every POLL_S it also reads the simulator's member health
and pushes operating statuses that changed, and PUTs again any load balancer
the simulator does not show at its revision (a restarted simulator or API):
Octavia's database is the only persistent copy."""
import queue
import threading
import time

from octavia_lib.common import constants as lib_consts
from oslo_log import log as logging

from octavia.api.drivers.driver_agent import driver_updater
from octavia.common import constants as c
from octavia.db import api as db_api
from octavia.db import models
from octavia.db import repositories as repo

from octavia_provider import graph
from octavia_provider.simulator import Refused
from octavia_provider.simulator import Simulator

LOG = logging.getLogger(__name__)
POLL_S = 2
# how long a job waits for the API's transaction to show
COMMIT_WAIT_S = 20
PENDING = (c.PENDING_CREATE, c.PENDING_UPDATE, c.PENDING_DELETE)


class Job:
    def __init__(self, kind, obj_id, vip_port_id=None):
        self.kind = kind  # 'loadbalancers' or 'pools'
        self.obj_id = obj_id
        # a VIP port made for a load balancer that may never be committed
        self.vip_port_id = vip_port_id
        self.deadline = time.monotonic() + COMMIT_WAIT_S


class Sync(threading.Thread):
    def __init__(self, provider):
        super().__init__(name='vimsim-provider-sync', daemon=True)
        self.provider = provider
        self.jobs = queue.Queue()
        self.sim = Simulator()
        self.lbs = repo.LoadBalancerRepository()
        self.pools = repo.PoolRepository()
        self.pushed = {}  # (kind, id) -> operating status last set
        self.unreachable = False  # the last poll failed (logged once)

    def request(self, kind, obj_id, vip_port_id=None):
        self.jobs.put(Job(kind, obj_id, vip_port_id))

    def run(self):
        self.session = db_api.get_session()
        self.updater = driver_updater.DriverUpdater()
        waiting = self._orphaned_jobs()
        next_poll = 0
        while True:
            try:
                wait = 0.05 if waiting else max(0, next_poll - time.monotonic())
                waiting.append(self.jobs.get(timeout=wait))
            except queue.Empty:
                pass
            for job in list(waiting):
                try:
                    done = self._try(job)
                except Exception:
                    LOG.exception('sync of %s %s failed', job.kind, job.obj_id)
                    done = True
                if done:
                    waiting.remove(job)
            if time.monotonic() >= next_poll and not waiting:
                try:
                    self._poll()
                    if self.unreachable:
                        LOG.info('simulator reachable again')
                    self.unreachable = False
                except Exception as e:
                    if not self.unreachable:
                        LOG.warning('member health poll failed: %s', e)
                    self.unreachable = True
                next_poll = time.monotonic() + POLL_S

    def _orphaned_jobs(self):
        """Load balancers a killed API left PENDING_*: finish them now."""
        with self.session.begin():
            ids = [r.id for r in self.session.query(models.LoadBalancer.id)
                   .filter(models.LoadBalancer.provider == self.provider,
                           models.LoadBalancer.provisioning_status.in_(
                               PENDING))]
        return [Job('loadbalancers', i) for i in ids]

    def _load(self, job):
        with self.session.begin():
            lb_id = job.obj_id
            if job.kind == 'pools':
                pool = self.pools.get(self.session, id=job.obj_id)
                lb_id = pool and pool.load_balancer_id
            return lb_id and self.lbs.get(self.session, id=lb_id)

    def _try(self, job):
        lb = self._load(job)
        if lb is not None and lb.provisioning_status in PENDING:
            self._apply(lb)
            return True
        if time.monotonic() < job.deadline:
            return False
        if lb is None and job.vip_port_id:
            # the create was rolled back after the VIP port was made
            LOG.info('load balancer %s was never committed: deleting its '
                     'VIP port %s', job.obj_id, job.vip_port_id)
            self.sim.call('DELETE', '/loadbalancers/%s?vip_port_id=%s'
                          % (job.obj_id, job.vip_port_id))
        return True

    def _push(self, status):
        result = self.updater.update_loadbalancer_status(status)
        if result.get(lib_consts.STATUS_CODE) != lib_consts.DRVR_STATUS_CODE_OK:
            LOG.error('status update refused: %s (%s)', result, status)

    def _apply(self, lb):
        if lb.provisioning_status == c.PENDING_DELETE:
            self.sim.call('DELETE', '/loadbalancers/%s?vip_port_id=%s'
                          % (lb.id, lb.vip.port_id))
            deleted = _deleted_tree(lb)
            for kind, recs in deleted.items():
                for rec in recs:
                    self.pushed.pop((kind, rec['id']), None)
            self._push(deleted)
            LOG.info('load balancer %s deleted', lb.id)
            return
        body = graph.spec(lb)
        try:
            view = self.sim.call('PUT', '/loadbalancers/' + lb.id, body)
        except Refused as e:
            LOG.warning('simulator refused load balancer %s: %s', lb.id,
                        e.reason)
            self._push(_settled(lb, c.ERROR))
            return
        status = _settled(lb, c.ACTIVE)
        failed = {li['id'] for li in view['listeners'] if li.get('error')}
        for li in status['listeners']:
            if li['id'] in failed:
                li[c.PROVISIONING_STATUS] = c.ERROR
        self._merge_operating(status, graph.operating_statuses(lb, view),
                              force=True)
        self._push(status)
        LOG.info('load balancer %s in sync (revision %s)', lb.id,
                 body['revision'])

    def _merge_operating(self, status, ops, force=False):
        by_key = {(kind, rec['id']): rec for kind in _KINDS
                  for rec in status.setdefault(kind, [])}
        for key, op in ops.items():
            if not force and self.pushed.get(key) == op:
                continue
            self.pushed[key] = op
            rec = by_key.get(key)
            if rec is None:
                rec = {'id': key[1]}
                status[key[0]].append(rec)
            rec[c.OPERATING_STATUS] = op

    def _poll(self):
        views = {v['id']: v for v in self.sim.call(
            'GET', '/loadbalancers', retries=0)['loadbalancers']}
        with self.session.begin():
            rows = (self.session.query(models.LoadBalancer.id,
                                       models.LoadBalancer.provisioning_status)
                    .filter(models.LoadBalancer.provider == self.provider,
                            models.LoadBalancer.provisioning_status
                            != c.DELETED).all())
        known = {r.id for r in rows}
        for stale in set(views) - known:
            LOG.info('simulator runs load balancer %s unknown to Octavia: '
                     'stopping it', stale)
            self.sim.call('DELETE', '/loadbalancers/' + stale)
        for lb_id in [r.id for r in rows if r.provisioning_status == c.ACTIVE]:
            with self.session.begin():
                lb = self.lbs.get(self.session, id=lb_id)
            if lb is None or lb.provisioning_status != c.ACTIVE:
                continue
            body = graph.spec(lb)
            view = views.get(lb_id)
            if view is None or view['revision'] != body['revision']:
                try:
                    view = self.sim.call('PUT', '/loadbalancers/' + lb_id,
                                         body)
                    LOG.info('load balancer %s restored in the simulator',
                             lb_id)
                except Refused as e:
                    LOG.warning('simulator refused to restore load balancer '
                                '%s: %s', lb_id, e.reason)
                    continue
            status = {}
            self._merge_operating(status, graph.operating_statuses(lb, view))
            if any(status.values()):
                self._push(status)


_KINDS = ('loadbalancers', 'listeners', 'pools', 'members', 'healthmonitors')


def _tree(lb):
    """Every object of the load balancer, by status-update kind."""
    pools = list(lb.pools)
    return {
        'members': [m for p in pools for m in p.members],
        'healthmonitors': [p.health_monitor for p in pools
                           if p.health_monitor],
        'pools': pools,
        'listeners': list(lb.listeners),
        'loadbalancers': [lb],
    }


def _deleted_tree(lb):
    return {kind: [{'id': o.id, c.PROVISIONING_STATUS: c.DELETED}
                   for o in objs] for kind, objs in _tree(lb).items()}


def _settled(lb, outcome):
    """PENDING_DELETE objects (and those of a pool going) -> DELETED, other
    pending ones -> `outcome`; the load balancer ACTIVE, or ERROR when its
    own create failed."""
    gone_pools = {p.id for p in lb.pools
                  if p.provisioning_status == c.PENDING_DELETE}
    status = {kind: [] for kind in _KINDS}
    for kind, objs in _tree(lb).items():
        if kind == 'loadbalancers':
            continue
        for o in objs:
            pool_id = getattr(o, 'pool_id', None)
            if o.provisioning_status == c.PENDING_DELETE or (
                    kind in ('members', 'healthmonitors')
                    and pool_id in gone_pools):
                status[kind].append({'id': o.id,
                                     c.PROVISIONING_STATUS: c.DELETED})
            elif o.provisioning_status in PENDING:
                status[kind].append({'id': o.id,
                                     c.PROVISIONING_STATUS: outcome})
    lb_outcome = (c.ERROR if outcome == c.ERROR
                  and lb.provisioning_status == c.PENDING_CREATE else c.ACTIVE)
    status['loadbalancers'].append({'id': lb.id,
                                    c.PROVISIONING_STATUS: lb_outcome})
    return status
