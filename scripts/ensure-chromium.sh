#!/usr/bin/env bash
# The panel's browser tests drive Debian's Chromium (never a browser downloaded by Playwright) and
# trust the reference CA through an NSS database made with certutil. Installs both when missing.
set -euo pipefail
if command -v chromium >/dev/null && command -v certutil >/dev/null; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's chromium and libnss3-tools for the browser tests…"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium libnss3-tools >/dev/null
  exit 0
fi
echo "The browser tests need Debian's chromium (/usr/bin/chromium) and certutil." >&2
echo "Install them with: sudo apt-get install chromium libnss3-tools" >&2
exit 1
