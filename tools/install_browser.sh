#!/usr/bin/env bash
# Install what the real-browser test (tests/viz/test_browser.py) needs:
#   - Chromium from Debian (apt), at /usr/bin/chromium;
#   - the playwright Python package into the project's venv (default .venv).
# Never runs `playwright install` (no browser downloads): playwright drives /usr/bin/chromium.
# Idempotent: each step is skipped when already done. Usage, from anywhere:
#   tools/install_browser.sh            # or: VENV=/path/to/venv tools/install_browser.sh
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"

if [ -x /usr/bin/chromium ]; then
  echo "install_browser: chromium already installed ($(/usr/bin/chromium --version 2>/dev/null || true))"
else
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "install_browser: need root or sudo for apt-get" >&2; exit 1; }
    SUDO="sudo"
  fi
  $SUDO apt-get update
  # --no-install-recommends: chromium alone, not the ~115 desktop packages it recommends
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends chromium
fi

if "$VENV/bin/python" -c "import playwright" 2>/dev/null; then
  echo "install_browser: playwright already installed in $VENV"
else
  "$VENV/bin/python" -m pip install --quiet playwright
fi
echo "install_browser: ok"
