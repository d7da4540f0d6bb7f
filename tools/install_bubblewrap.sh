#!/usr/bin/env bash
# Install bubblewrap (bwrap), the sandbox `autogradkit grade` runs every student's kernel in
# (autogradkit_instructor/sandbox.py), from Debian's package. The grading tests need it.
# Idempotent. Usage, from anywhere:
#   tools/install_bubblewrap.sh
set -euo pipefail
"$(dirname "$0")/apt_install.sh" bwrap bubblewrap
