"""Octavia's no-op network driver without its database: the stock one opens a
SQLite file shared by every user of the machine (/tmp/octavia-network-noop.db,
BEGIN EXCLUSIVE) for calls only the amphora worker makes. The API only asks it
to validate VIP subnets and networks, which the simulator does for real when
the provider makes the VIP port (driver.create_vip_port)."""
from octavia.network.drivers.noop_driver import driver as noop


class _Manager(noop.NoopManager):
    def __init__(self):  # no super(): that opens the shared file
        self.networkconfigconfig = {}
        self._qos_extension_enabled = True


class NetworkDriver(noop.NoopNetworkDriver):
    def __init__(self):  # no super(): that makes the stock manager
        self.driver = _Manager()
