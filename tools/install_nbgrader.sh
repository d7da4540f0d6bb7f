#!/usr/bin/env bash
# Install nbgrader for the schema test (tests/grading/test_nbgrader_schema.py), which runs
# nbgrader's own validator on our release. It goes into its own venv, .venv/nbgrader, so its
# many pins never move the kit's packages. Idempotent. Usage, from anywhere:
#   tools/install_nbgrader.sh
set -euo pipefail
cd "$(dirname "$0")/.."
NBGRADER_VENV=.venv/nbgrader
if "$NBGRADER_VENV/bin/python" -c "import nbgrader" 2>/dev/null; then
  echo "install_nbgrader: nbgrader already installed in $NBGRADER_VENV"
  exit 0
fi
"${PYTHON:-python3}" -m venv "$NBGRADER_VENV"
"$NBGRADER_VENV/bin/python" -m pip install --quiet --disable-pip-version-check 'nbgrader==0.9.6'
echo "install_nbgrader: ok ($NBGRADER_VENV)"
