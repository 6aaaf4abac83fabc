#!/usr/bin/env bash
# Installs the Debian packages the test suite drives for real (redis-server, redis-sentinel, chromium, tinyproxy, nginx, openssl) when they are missing.
set -euo pipefail
need=()
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v redis-sentinel >/dev/null 2>&1 || need+=(redis-sentinel)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v tinyproxy >/dev/null 2>&1 || need+=(tinyproxy)
command -v nginx >/dev/null 2>&1 || need+=(nginx)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
[ ${#need[@]} -eq 0 ] && exit 0
echo "system-deps: installing ${need[*]} (Debian packages the tests use)" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "system-deps: run as root, or install them yourself: apt-get install -y ${need[*]}" >&2
    exit 1
  fi
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
