#!/usr/bin/env bash
# The headless browser the HTML-report tests drive: Debian's chromium and chromium-driver.
# Idempotent: installs only what is missing (needs root and apt-get; waits for the dpkg lock).
set -euo pipefail

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
if [ ${#need[@]} -eq 0 ]; then
  echo "chromium and chromedriver present: $(chromium --version 2>/dev/null || true)"
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "missing: ${need[*]} — install them as root with apt-get (Debian packages" >&2
  echo "chromium and chromium-driver); the HTML-report browser tests need them" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=600 update -qq
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${need[@]}"
echo "installed: $(chromium --version)"
