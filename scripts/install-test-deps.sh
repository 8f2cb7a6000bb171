#!/usr/bin/env bash
# Installs what the SSH and store tests need on a Debian/Ubuntu machine (run
# as root; idempotent): OpenSSH server and client, sudo, and sshd's privilege
# separation directory; PostgreSQL's server, which test/support/postgres.ts
# runs as a throw-away server in a temporary directory. It creates no user:
# test/support/sshd.ts creates a throw-away login user with a random password
# per test run and removes it (with its sudoers drop-in) when the run's sshd
# stops. etcd (Debian etcd-server) is the storage of the throw-away
# kube-apiserver of test/support/kube-apiserver.ts; Debian's prometheus
# package brings promtool, which test/component/monitoring-kit.test.ts checks
# the alert rules with (its daemon is never started). test/support/sshd.ts,
# test/support/postgres.ts and test/support/kube-apiserver.ts run this
# script when something is missing and they are root.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "install-test-deps.sh must run as root" >&2
  exit 1
fi

missing=()
[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
command -v ssh-keygen >/dev/null 2>&1 || missing+=(openssh-client)
command -v sudo >/dev/null 2>&1 || missing+=(sudo)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # policy-rc.d keeps the packages from starting the system sshd on port 22,
  # the system PostgreSQL cluster on port 5432, etcd on 2379 and Prometheus on 9090.
  created_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    created_policy=1
  fi
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  if [ "$created_policy" -eq 1 ]; then rm -f /usr/sbin/policy-rc.d; fi
fi

mkdir -p /run/sshd
chmod 0755 /run/sshd
