#!/usr/bin/env bash
# A test puts a real nginx (Debian's nginx-light) with HTTP/2 before the independent implementation
# and reloads it during a run. It runs as the current user with its own prefix, configuration, pid
# and logs in a temporary directory, listening on loopback only. Installs it when missing.
set -euo pipefail
if [ -x /usr/sbin/nginx ]; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's nginx-light for the tests of a real front…"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
  exit 0
fi
echo "The tests of a real front need Debian's nginx (/usr/sbin/nginx)." >&2
echo "Install it with: sudo apt-get install nginx-light" >&2
exit 1
