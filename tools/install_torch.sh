#!/usr/bin/env bash
# Install PyTorch (CPU), the oracle of the parity tests (tests/parity/, and the ops and nn
# tests that compare with it), into the project's venv (default .venv). The package never
# imports it. Idempotent. Usage, from anywhere:
#   tools/install_torch.sh            # or: VENV=/path/to/venv tools/install_torch.sh
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
if "$VENV/bin/python" -c "import torch" 2>/dev/null; then
  echo "install_torch: torch already installed in $VENV"
  exit 0
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check 'torch==2.13.0'
echo "install_torch: ok"
