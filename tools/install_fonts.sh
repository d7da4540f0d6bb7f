#!/usr/bin/env bash
# Install Noto Sans CJK, the system font the zh-CN edition's pages need (docs/translating.md,
# "Fonts"): Debian's fonts-noto-cjk (conda: font-ttf-noto-cjk from conda-forge), found by
# fontconfig, which Chromium and the browser test (tools/browser_check.py --glyphs) use.
# matplotlib needs none: the package ships its own subset of the font, which
# tools/subset_fonts.py cuts from this one. Idempotent. Usage, from anywhere:
#   tools/install_fonts.sh
set -euo pipefail
cd "$(dirname "$0")/.."
FAMILY="Noto Sans CJK SC"  # autogradkit/_i18n.py FONTS["zh-CN"].source

tools/apt_install.sh fc-list fontconfig
if fc-list ":family=$FAMILY" family | grep -q .; then
  echo "install_fonts: $FAMILY already installed"
else
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "install_fonts: need root or sudo for apt-get" >&2; exit 1; }
    SUDO="sudo"
  fi
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends fonts-noto-cjk
  fc-list ":family=$FAMILY" family | grep -q . || { echo "install_fonts: fontconfig does not see $FAMILY" >&2; exit 1; }
fi

echo "install_fonts: ok"
