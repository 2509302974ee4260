#!/usr/bin/env bash
# The registry's tests run once on the embedded database and once on a real PostgreSQL server:
# Debian's, a throwaway cluster made by initdb in a temporary directory, listening on loopback only
# (tests/registry/support/postgres-server.ts; as root it runs as the postgres user). Installs the
# server when missing.
set -euo pipefail
if compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's PostgreSQL for the registry's tests…"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  exit 0
fi
echo "The registry's tests need Debian's PostgreSQL server (/usr/lib/postgresql/*/bin/postgres)." >&2
echo "Install it with: sudo apt-get install postgresql" >&2
exit 1
