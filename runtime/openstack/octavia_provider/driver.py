"""The provider driver Octavia's API calls, inside its DB transaction: only
quick checks happen here (a refusal is the tenant's 400); the work is queued
for the sync thread (sync.py), which runs once the transaction committed."""
from octavia_lib.api.drivers import exceptions as lib_exc
from octavia_lib.api.drivers import provider_base
from oslo_log import log as logging

from octavia.common import exceptions

from octavia_provider.simulator import Refused
from octavia_provider.simulator import Simulator
from octavia_provider import sync

LOG = logging.getLogger(__name__)
NAME = 'vimsim'
PROTOCOLS = ('TCP', 'HTTP', 'HTTPS')  # all proxied as TCP
MONITORS = ('TCP', 'HTTP', 'HTTPS', 'TLS-HELLO', 'PING')  # all a TCP connect
MIN_DELAY_S = 1


class TenantInputRefused(exceptions.APIException):
    """400 with the reason; octavia_api.py lets it through call_provider,
    which would otherwise make every driver exception a 409, 500 or 501."""
    msg = "%(reason)s"
    code = 400


def refuse(reason):
    raise TenantInputRefused(reason=reason)


class SimulatorProviderDriver(provider_base.ProviderDriver):
    _sync = None

    def __init__(self):
        super().__init__()
        self.name = NAME
        self.sim = Simulator()

    @classmethod
    def start_sync(cls):
        """Called once by the launcher: a driver object is made per request."""
        cls._sync = sync.Sync(NAME)
        cls._sync.start()

    def _queue(self, kind, obj_id, vip_port_id=None):
        if self._sync is None:
            raise lib_exc.DriverError(
                user_fault_string='The load balancer service is starting.')
        self._sync.request(kind, obj_id, vip_port_id)

    def _checked(self, method, path, body):
        try:
            return self.sim.call(method, path, body)
        except Refused as e:
            refuse(e.reason)

    # ---- checks ----

    def _check_listener(self, listener):
        if listener.protocol not in PROTOCOLS:
            refuse('Listener protocol %s is not supported here (only %s).'
                   % (listener.protocol, ', '.join(PROTOCOLS)))

    def _check_pool(self, pool, project_id=None):
        if pool.protocol not in PROTOCOLS:
            refuse('Pool protocol %s is not supported here (only %s).'
                   % (pool.protocol, ', '.join(PROTOCOLS)))
        if pool.healthmonitor:
            self._check_monitor(pool.healthmonitor)
        for m in pool.members or []:
            self._check_member(m, project_id or pool.project_id)

    def _check_monitor(self, hm):
        # an update names only what changes: the rest is Unset (falsy)
        if hm.type and hm.type not in MONITORS:
            refuse('Health monitor type %s is not supported here.' % hm.type)
        if isinstance(hm.delay, int) and hm.delay < MIN_DELAY_S:
            refuse('Health monitor delay must be at least %d s.'
                   % MIN_DELAY_S)

    def _check_member(self, member, project_id=None):
        self._checked('POST', '/member-checks', {
            'project_id': member.project_id or project_id,
            'address': member.address,
            'subnet_id': member.subnet_id or None})

    # ---- load balancers ----

    def create_vip_port(self, loadbalancer_id, project_id, vip_dictionary,
                        additional_vip_dicts):
        if additional_vip_dicts:
            refuse('Additional VIPs are not supported here.')
        port = self._checked('POST', '/vip-ports', {
            'loadbalancer_id': loadbalancer_id, 'project_id': project_id,
            'subnet_id': vip_dictionary.get('vip_subnet_id'),
            'network_id': vip_dictionary.get('vip_network_id'),
            'ip_address': vip_dictionary.get('vip_address')})
        self._queue('loadbalancers', loadbalancer_id, port['port_id'])
        return ({'vip_address': port['ip_address'],
                 'vip_network_id': port['network_id'],
                 'vip_subnet_id': port['subnet_id'],
                 'vip_port_id': port['port_id']}, [])

    def loadbalancer_create(self, loadbalancer):
        # a single-call create brings its whole graph (the sync is queued)
        for listener in loadbalancer.listeners or []:
            self._check_listener(listener)
        for pool in loadbalancer.pools or []:
            self._check_pool(pool, loadbalancer.project_id)

    def loadbalancer_update(self, old_loadbalancer, new_loadbalancer):
        self._queue('loadbalancers', old_loadbalancer.loadbalancer_id)

    def loadbalancer_delete(self, loadbalancer, cascade=False):
        self._queue('loadbalancers', loadbalancer.loadbalancer_id)

    # ---- listeners ----

    def listener_create(self, listener):
        self._check_listener(listener)
        self._queue('loadbalancers', listener.loadbalancer_id)

    def listener_update(self, old_listener, new_listener):
        self._queue('loadbalancers', old_listener.loadbalancer_id)

    def listener_delete(self, listener):
        self._queue('loadbalancers', listener.loadbalancer_id)

    # ---- pools ----

    def pool_create(self, pool):
        self._check_pool(pool)
        self._queue('loadbalancers', pool.loadbalancer_id)

    def pool_update(self, old_pool, new_pool):
        self._queue('loadbalancers', old_pool.loadbalancer_id)

    def pool_delete(self, pool):
        self._queue('loadbalancers', pool.loadbalancer_id)

    # ---- members ----

    def member_create(self, member):
        self._check_member(member)
        self._queue('pools', member.pool_id)

    def member_update(self, old_member, new_member):
        self._queue('pools', old_member.pool_id)

    def member_delete(self, member):
        self._queue('pools', member.pool_id)

    def member_batch_update(self, pool_id, members):
        for m in members:
            self._check_member(m)
        self._queue('pools', pool_id)

    # ---- health monitors ----

    def health_monitor_create(self, healthmonitor):
        self._check_monitor(healthmonitor)
        self._queue('pools', healthmonitor.pool_id)

    def health_monitor_update(self, old_healthmonitor, new_healthmonitor):
        self._check_monitor(new_healthmonitor)
        self._queue('pools', old_healthmonitor.pool_id)

    def health_monitor_delete(self, healthmonitor):
        self._queue('pools', healthmonitor.pool_id)

    # ---- flavors and availability zones: none ----

    def get_supported_flavor_metadata(self):
        return {}

    def validate_flavor(self, flavor_metadata):
        if flavor_metadata:
            refuse('This provider takes no flavor settings.')

    def get_supported_availability_zone_metadata(self):
        return {}

    def validate_availability_zone(self, availability_zone_metadata):
        if availability_zone_metadata:
            refuse('This provider takes no availability zone settings.')
