#!/usr/bin/env bash
# `make test` as a new user runs it: on a fresh clone of HEAD, with every optional system
# package out of sight (bubblewrap, Podman, Chromium, the system's fonts, nbgrader, torch,
# git), even where this machine has them, and none of this machine's state. It must end with
# 0 failed; the tests that need a package are skipped, and the skips are listed at the end,
# grouped by reason.
#
# The packages are hidden, not removed: in a private mount namespace (unshare, as root) each
# of their programs and font files is covered by /dev/null (not executable, not a font), and
# fontconfig starts from an empty system cache. The clone's venv is made by make (from
# Debian's python3 unless PYTHON=... says otherwise, with this machine's way to packages: its
# pip settings and network), so it holds no torch and no nbgrader. Then the tests run as a
# new user would run them: as an unprivileged user (nobody) with a umask of 077, with an
# empty home (no caches, no settings of pip, matplotlib, IPython or Jupyter), no locale (LANG
# and LC_* unset), PATH a fresh Debian's, and no network but the loopback. Nothing outside
# the namespace changes.
# What a new user's machine has that this one may not: the clone sits in a folder whose name
# has a space and non-ASCII letters (not autogradkit), a deep TMPDIR, and a home holding the
# settings a user of matplotlib and IPython may keep (figure.dpi, SVG figures, a startup
# file, PYTHONSTARTUP), none of which a stored output or a test may depend on.
# Usage, from anywhere (as root, or through sudo):
#   tools/without_optional_packages.sh [MAKE_VARIABLES...]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "without_optional_packages: needs root (unshare)" >&2; exit 1; }
  exec sudo --preserve-env "$0" "$@"
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
git clone --quiet "$here" "$scratch/my course ü/课程 kit"
mkdir -p "$scratch"/{home,fontconfig} "$scratch/tmp/a-folder-as-deep-as-a-ci-runners-temporary-one"
mkdir -p "$scratch/home/.config/matplotlib" "$scratch/home/.ipython/profile_default/startup"
echo "figure.dpi: 50" > "$scratch/home/.config/matplotlib/matplotlibrc"
echo "c.InlineBackend.figure_formats = {'svg'}" \
  > "$scratch/home/.ipython/profile_default/ipython_kernel_config.py"
echo 'print("a startup file of the user")' > "$scratch/home/.ipython/profile_default/startup/00.py"
echo 'print("PYTHONSTARTUP of the user")' > "$scratch/home/startup.py"

# what a machine may have and make test must not need: these programs, and any system font
# (a fresh Debian has none: matplotlib draws with its own, the zh editions with the kit's)
for program in bwrap podman chromium chromium-browser git; do
  if path="$(command -v "$program")"; then
    printf '%s\n' "$path" "$(readlink -f "$path")"
  fi
done > "$scratch/hidden"
if command -v fc-list >/dev/null; then
  fc-list : file | sed 's/: *$//' >> "$scratch/hidden"
fi

inside='
set -euo pipefail
scratch=$1; shift
sort -u "$scratch/hidden" | while IFS= read -r path; do
  if [ -e "$path" ]; then mount --bind /dev/null "$path"; echo "hidden: $path"; fi
done
if [ -d /var/cache/fontconfig ]; then mount --bind "$scratch/fontconfig" /var/cache/fontconfig; fi
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin  # as on a fresh Debian
unset NBGRADER NBGRADER_PYTHON MPLBACKEND VIRTUAL_ENV PYTHONPATH STRICT_SKIPS
cd "$scratch/my course ü/课程 kit"
make .venv/.installed-test "$@"  # the install: with the pip settings and network of this machine
chown -R nobody: "$scratch"
# the tests: no network but the loopback, as nobody, in an environment of PATH and HOME only,
# with the umask of a cautious user (what the tools write follows it: no test may need more)
umask 077
unshare --net sh -c "ip link set lo up && exec \"\$@\"" sh \
  setpriv --reuid=nobody --regid=nogroup --clear-groups \
  env -i PATH="$PATH" HOME="$scratch/home" PYTHONSTARTUP="$scratch/home/startup.py" \
  TMPDIR="$scratch/tmp/a-folder-as-deep-as-a-ci-runners-temporary-one" make test "$@"
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
