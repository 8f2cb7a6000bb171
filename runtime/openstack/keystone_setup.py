"""First-time Keystone setup in ONE process: fernet_setup + credential_setup +
db_sync + bootstrap. Each `keystone-manage` run spends ~3 s importing
Keystone; four runs cost ~13 s per fresh dataDir, this ~4 s.

usage: OS_BOOTSTRAP_PASSWORD=... python keystone_setup.py --config-file keystone.conf \
           bootstrap [other keystone-manage bootstrap options]
"""
import sys
import warnings

warnings.simplefilter("ignore")

import keystone.conf  # noqa: E402
from keystone.cmd import cli  # noqa: E402
from keystone.common import fernet_utils  # noqa: E402
from keystone.common.sql import upgrades  # noqa: E402
from keystone.credential.providers import fernet as credential_fernet  # noqa: E402

CONF = keystone.conf.CONF
_bootstrap = cli.BootStrap.main.__func__


def _setup_then_bootstrap(cls):
    # keys are owned by the user running us (no --keystone-user chown)
    cli.BasePermissionsSetup.initialize_fernet_repository(
        None, None, 'fernet_tokens')  # receipts share this repository
    cred = fernet_utils.FernetUtils(CONF.credential.key_repository,
                                    credential_fernet.MAX_ACTIVE_KEYS,
                                    'credential')
    cred.create_key_directory(None, None)
    if cred.validate_key_repository(requires_write=True):
        cred.initialize_key_repository(None, None)
    upgrades.offline_sync_database_to_version()
    _bootstrap(cls)


cli.BootStrap.main = classmethod(_setup_then_bootstrap)

if __name__ == '__main__':
    cli.main(argv=sys.argv)
