"""Octavia's schema on SQLite, in one Python process: octavia-db-manage's
alembic migrations use ALTER TABLE forms SQLite lacks, so the tables come from
the models (BASE.metadata.create_all) and the lookup tables get the rows the
migrations insert (the same lists, from octavia's constants). Idempotent.

usage: python octavia_setup.py --config-file octavia.conf
"""
import sys
import warnings

warnings.simplefilter("ignore")

from octavia.common import config  # noqa: E402
from octavia.common import constants as c  # noqa: E402
from octavia.db import api as db_api  # noqa: E402
from octavia.db import base_models  # noqa: E402
from octavia.db import models  # noqa: E402

LOOKUPS = {
    models.ProvisioningStatus: c.SUPPORTED_PROVISIONING_STATUSES,
    models.OperatingStatus: c.SUPPORTED_OPERATING_STATUSES,
    models.Protocol: c.SUPPORTED_PROTOCOLS,
    models.Algorithm: c.SUPPORTED_LB_ALGORITHMS,
    models.AmphoraRoles: c.SUPPORTED_AMPHORA_ROLES,
    models.LBTopology: c.SUPPORTED_LB_TOPOLOGIES,
    models.SessionPersistenceType: c.SUPPORTED_SP_TYPES,
    models.HealthMonitorType: c.SUPPORTED_HEALTH_MONITOR_TYPES,
    models.VRRPAuthMethod: c.SUPPORTED_VRRP_AUTH,
    models.L7RuleType: c.SUPPORTED_L7RULE_TYPES,
    models.L7RuleCompareType: c.SUPPORTED_L7RULE_COMPARE_TYPES,
    models.L7PolicyAction: c.SUPPORTED_L7POLICY_ACTIONS,
    models.ClientAuthenticationMode: c.SUPPORTED_CLIENT_AUTH_MODES,
}


def main():
    config.init(sys.argv[1:])
    session = db_api.get_session()
    base_models.BASE.metadata.create_all(session.get_bind())
    added = 0
    with session.begin():
        for model, names in LOOKUPS.items():
            have = {row.name for row in session.query(model).all()}
            for name in names:
                if name not in have:
                    session.add(model(name=name))
                    added += 1
    print("octavia schema ready (%d lookup rows added)" % added)


if __name__ == '__main__':
    main()
