#!/usr/bin/env bash
# Install bubblewrap (bwrap), the sandbox `autogradkit grade` runs every student's kernel in
# (autogradkit/grading/sandbox.py), from Debian's package. The grading tests need it.
# Idempotent: skipped when bwrap is already on PATH. Usage, from anywhere:
#   tools/install_bubblewrap.sh
set -euo pipefail

if command -v bwrap >/dev/null; then
  echo "install_bubblewrap: bubblewrap already installed ($(bwrap --version 2>/dev/null || true))"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install_bubblewrap: need root or sudo for apt-get" >&2; exit 1; }
  SUDO="sudo"
fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends bubblewrap
echo "install_bubblewrap: ok ($(bwrap --version))"
