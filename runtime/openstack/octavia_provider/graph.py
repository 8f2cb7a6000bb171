"""A load balancer as the simulator takes it (vimsim/octavia/schema.ts), built
from Octavia's database, and the operating statuses that follow from the
simulator's view of it."""
import hashlib
import json

from octavia.common import constants as c

# objects on their way out, or refused before: not served
NOT_SERVED = (c.PENDING_DELETE, c.DELETED, c.ERROR)


def _served(obj):
    return obj.provisioning_status not in NOT_SERVED


def _monitor(hm):
    if hm is None or not _served(hm):
        return None
    return {'id': hm.id, 'type': hm.type, 'delay': hm.delay,
            'timeout': hm.timeout, 'max_retries': hm.rise_threshold,
            'max_retries_down': hm.fall_threshold,
            'admin_state_up': bool(hm.enabled)}


def _pool(pool):
    return {'id': pool.id, 'lb_algorithm': pool.lb_algorithm,
            'admin_state_up': bool(pool.enabled),
            'members': [{'id': m.id, 'address': m.ip_address,
                         'protocol_port': m.protocol_port,
                         'subnet_id': m.subnet_id, 'weight': m.weight,
                         'admin_state_up': bool(m.enabled),
                         'backup': bool(m.backup)}
                        for m in pool.members if _served(m)],
            'healthmonitor': _monitor(pool.health_monitor)}


def spec(lb):
    """The body of PUT /sim/octavia/loadbalancers/{id}, with its revision."""
    pools = [_pool(p) for p in lb.pools if _served(p)]
    pool_ids = {p['id'] for p in pools}
    body = {
        'project_id': lb.project_id,
        'admin_state_up': bool(lb.enabled),
        'vip': {'address': lb.vip.ip_address, 'port_id': lb.vip.port_id},
        'listeners': [{'id': li.id, 'protocol': li.protocol,
                       'protocol_port': li.protocol_port,
                       'admin_state_up': bool(li.enabled),
                       'default_pool_id': (li.default_pool_id
                                           if li.default_pool_id in pool_ids
                                           else None),
                       'timeout_client_data': li.timeout_client_data,
                       'timeout_member_connect': li.timeout_member_connect,
                       'timeout_member_data': li.timeout_member_data}
                      for li in lb.listeners if _served(li)],
        'pools': pools,
    }
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode())
    body['revision'] = digest.hexdigest()[:32]
    return body


def _worst(statuses):
    """ONLINE, DEGRADED when some are ERROR, ERROR when all are."""
    errors = sum(1 for s in statuses if s == c.ERROR)
    if statuses and errors == len(statuses):
        return c.ERROR
    return c.DEGRADED if errors or c.DEGRADED in statuses else c.ONLINE


def operating_statuses(lb, view):
    """{(kind, id): operating_status} of a served load balancer's objects, from
    the simulator's view (GET /sim/octavia/loadbalancers/{id})."""
    health = {m['id']: m['health'] for m in view.get('members', [])}
    listening = {li['id']: li for li in view.get('listeners', [])}
    out = {}
    pool_status = {}
    for pool in lb.pools:
        if not _served(pool):
            continue
        members = []
        for m in pool.members:
            if not _served(m):
                continue
            h = health.get(m.id)
            if not (m.enabled and pool.enabled):
                s = c.OFFLINE
            elif h == 'UP':
                s = c.ONLINE
            elif h == 'DOWN':
                s = c.ERROR
            elif h == 'NO_CHECK':
                s = c.NO_MONITOR
            else:  # in no listener's proxy, or drained (weight 0)
                s = c.OFFLINE
            out[('members', m.id)] = s
            if s in (c.ONLINE, c.ERROR):
                members.append(s)
        s = _worst(members) if pool.enabled else c.OFFLINE
        pool_status[pool.id] = s
        out[('pools', pool.id)] = s
    served = []
    for li in lb.listeners:
        if not _served(li):
            continue
        v = listening.get(li.id, {})
        if not (li.enabled and lb.enabled):
            s = c.OFFLINE
        elif not v.get('listening'):
            s = c.ERROR
        else:
            s = pool_status.get(li.default_pool_id, c.ONLINE)
            s = c.ONLINE if s == c.OFFLINE else s
        out[('listeners', li.id)] = s
        if s != c.OFFLINE:
            served.append(s)
    out[('loadbalancers', lb.id)] = (_worst(served) if lb.enabled
                                     else c.OFFLINE)
    return out
