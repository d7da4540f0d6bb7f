#!/usr/bin/env bash
# Install Debian packages without their recommends, as root or through sudo, once each:
#   tools/apt_install.sh COMMAND PACKAGE   (skipped when COMMAND is already on PATH)
# The install scripts for the optional test tools (browser, bubblewrap) share it.
set -euo pipefail
command_name=$1 package=$2
if command -v "$command_name" >/dev/null; then
  echo "apt_install: $package already installed"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "apt_install: need root or sudo for apt-get" >&2; exit 1; }
  SUDO="sudo"
fi
$SUDO apt-get update
# --no-install-recommends: the package alone (chromium recommends ~115 desktop packages)
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "$package"
echo "apt_install: $package ok"
