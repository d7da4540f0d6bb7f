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

tools/apt_install.sh chromium chromium  # Debian's, at /usr/bin/chromium

if "$VENV/bin/python" -c "import playwright" 2>/dev/null; then
  echo "install_browser: playwright already installed in $VENV"
else
  "$VENV/bin/python" -m pip install --quiet playwright
fi
echo "install_browser: ok"
