#!/usr/bin/env bash
# `make test` as a new user runs it: on a fresh clone of HEAD, with every optional system
# package out of sight (bubblewrap, Podman, Chromium, the system's CJK fonts, nbgrader, torch),
# even where this machine has them. It must end with 0 failed; the tests that need a package
# are skipped, and the skips are listed at the end, grouped by reason.
#
# The packages are hidden, not removed: in a private mount namespace (unshare, as root) each
# of their programs and font files is covered by /dev/null (not executable, not a font), and
# fontconfig, matplotlib, IPython and Jupyter start from empty caches and settings. The
# clone's venv is made by `make test`, so it holds no torch; the clone has no .venv/nbgrader.
# Nothing outside the namespace changes. Usage, from anywhere (as root, or through sudo):
#   tools/without_optional_packages.sh [MAKE_VARIABLES...]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "without_optional_packages: needs root (unshare)" >&2; exit 1; }
  exec sudo --preserve-env "$0" "$@"
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
git clone --quiet "$here" "$scratch/autogradkit"
mkdir -p "$scratch"/{cache,mpl,ipython,jupyter,fontconfig}

# what a machine may have and make test must not need: these programs, and Chinese fonts
for program in bwrap podman chromium chromium-browser; do
  if path="$(command -v "$program")"; then
    printf '%s\n' "$path" "$(readlink -f "$path")"
  fi
done > "$scratch/hidden"
if command -v fc-list >/dev/null; then
  fc-list ':lang=zh-cn' file | sed 's/: *$//' >> "$scratch/hidden"
fi

inside='
set -euo pipefail
scratch=$1; shift
sort -u "$scratch/hidden" | while IFS= read -r path; do
  if [ -e "$path" ]; then mount --bind /dev/null "$path"; echo "hidden: $path"; fi
done
if [ -d /var/cache/fontconfig ]; then mount --bind "$scratch/fontconfig" /var/cache/fontconfig; fi
unset NBGRADER NBGRADER_PYTHON MPLBACKEND VIRTUAL_ENV PYTHONPATH STRICT_SKIPS
export XDG_CACHE_HOME="$scratch/cache" MPLCONFIGDIR="$scratch/mpl" IPYTHONDIR="$scratch/ipython"
export JUPYTER_CONFIG_DIR="$scratch/jupyter/config" JUPYTER_DATA_DIR="$scratch/jupyter/data"
cd "$scratch/autogradkit"
make test "$@"
'
set +e
unshare --mount --propagation private bash -c "$inside" inside "$scratch" "$@" 2>&1 \
  | tee "$scratch/log"
code=${PIPESTATUS[0]}
set -e

echo
echo "without_optional_packages: skips of every stage, by reason"
# run_pytest.py prints each stage's "skips by reason" section: "  COUNT  REASON" lines
awk '/=+ skips by reason =+/ {on = 1; next} on && /^ *[0-9]+  / {n = $1; sub(/^ *[0-9]+  /, ""); total[$0] += n; next} {on = 0}
     END {for (r in total) printf "%6d  %s\n", total[r], r}' "$scratch/log" | sort -rn
grep -E '^total: ' "$scratch/log" | tail -1
exit "$code"
