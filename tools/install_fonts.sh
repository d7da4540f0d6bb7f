#!/usr/bin/env bash
# Install the font the zh-CN edition's figures and pages need (docs/translating.md, "Fonts"):
#   - Noto Sans CJK from Debian's fonts-noto-cjk (conda: font-ttf-noto-cjk from conda-forge),
#     found by fontconfig, which Chromium and the browser test (tools/browser_check.py
#     --glyphs) use too;
#   - matplotlib's font list in the project's venv (default .venv) rebuilt when it does not
#     know the font yet (matplotlib caches the fonts it saw the first time it ran).
# Idempotent: each step is skipped when already done. Usage, from anywhere:
#   tools/install_fonts.sh            # or: VENV=/path/to/venv tools/install_fonts.sh
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
FAMILY="Noto Sans CJK SC"  # autogradkit/_i18n.py FONTS["zh-CN"]

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

# matplotlib reads its font list from a cache written once: a font installed after that is
# unknown to it until the list is rebuilt
"$VENV/bin/python" - "$FAMILY" <<'EOF'
import sys

from matplotlib import font_manager

family = sys.argv[1]
if family not in {f.name for f in font_manager.fontManager.ttflist}:
    font_manager.fontManager = font_manager._load_fontmanager(try_read_cache=False)
    if family not in {f.name for f in font_manager.fontManager.ttflist}:
        sys.exit(f"install_fonts: matplotlib does not find {family}")
    print(f"install_fonts: matplotlib's font list rebuilt, with {family}")
else:
    print(f"install_fonts: matplotlib already knows {family}")
EOF
echo "install_fonts: ok"
