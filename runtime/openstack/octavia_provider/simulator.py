"""The VIM simulator's /sim/octavia API (vimsim/octavia/routes.ts), called with
a token of the octavia service user ([service_auth] in octavia.conf)."""
from oslo_config import cfg

from octavia.common import keystone

cfg.CONF.register_opts([cfg.URIOpt('url', help='VIM simulator base URL')],
                       group='nfv_simulator')


class Refused(Exception):
    """The simulator said no (4xx): the reason is the tenant's to read."""

    def __init__(self, status, reason):
        super().__init__(reason)
        self.status = status
        self.reason = reason


class Simulator:
    def __init__(self):
        self._session = None

    def call(self, method, path, body=None, ok=(200, 201, 204), retries=3):
        if self._session is None:
            self._session = keystone.KeystoneSession().get_session()
        url = cfg.CONF.nfv_simulator.url.rstrip('/') + '/sim/octavia' + path
        r = self._session.request(url, method, json=body, raise_exc=False,
                                  timeout=30, connect_retries=retries)
        data = r.json() if r.content else None
        if r.status_code in ok:
            return data
        reason = (data or {}).get('error') or r.text[:300]
        if 400 <= r.status_code < 500:
            raise Refused(r.status_code, reason)
        raise RuntimeError('simulator %s %s: %s %s'
                           % (method, path, r.status_code, reason))
