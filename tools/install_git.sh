#!/usr/bin/env bash
# Install git from Debian's package. The tests that read every tracked file of the repository
# (tests/test_self_contained.py, test_docs_names.py, notebooks/test_errors_translated.py)
# list them with `git ls-files`, so they need git and a clone, not a downloaded archive.
# Idempotent. Usage, from anywhere:
#   tools/install_git.sh
set -euo pipefail
"$(dirname "$0")/apt_install.sh" git git
