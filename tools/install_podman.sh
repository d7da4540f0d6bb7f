#!/usr/bin/env bash
# Install Podman and runc from Debian's packages, for `autogradkit grade --sandbox podman` and
# the tests that run the attack suite in containers too. No registry is needed: the kit makes
# its image itself (autogradkit_instructor/container.py). Idempotent. Usage, from anywhere:
#   tools/install_podman.sh
set -euo pipefail
here="$(dirname "$0")"
"$here/apt_install.sh" podman podman
"$here/apt_install.sh" runc runc
# Debian's default runtime, crun, refuses cgroup v1 machines that also mount a v2 hierarchy
# ("cgroups in hybrid mode not supported"); runc runs there. Only where nothing is configured.
conf=/etc/containers/containers.conf
if [ ! -f /sys/fs/cgroup/cgroup.controllers ] && ! grep -qs '^runtime' "$conf"; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO mkdir -p /etc/containers
  printf '[engine]\nruntime = "runc"\n' | $SUDO tee -a "$conf" >/dev/null
  echo "install_podman: runtime runc (cgroup v1 here)"
fi
podman --version
