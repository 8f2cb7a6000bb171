#!/usr/bin/env python3
# Tacker's Mgmt Driver for the Docker private registry VNF is not run by this
# orchestrator: the driver mapping (mgmt/mapping.ts, MGMT_DRIVER_MAP) resolves
# this file name to the built-in "private-registry" driver, which performs the
# same installation over SSH. Kept so the package has seed 000's layout.
import sys
sys.exit("resolved to the built-in private-registry driver; not meant to run")
