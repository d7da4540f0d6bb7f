"""``tools/without_optional_packages.sh`` says what it runs: the script that proves ``make
test`` on a fresh machine is read here, not run (it runs the whole suite: CI runs it).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "without_optional_packages.sh"


def inside() -> str:
    """The commands run in the private namespace: the script's single-quoted ``inside``."""
    found = re.search(r"^inside='\n(.*?)^'$", SCRIPT.read_text(encoding="utf-8"), re.M | re.S)
    assert found, "no inside='...' block"
    return found[1]


def test_the_script_is_valid_bash_and_its_namespace_block_one_string():
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)
    assert "'" not in inside()  # an apostrophe in a comment would end the string there


def test_every_system_font_is_hidden_as_a_fresh_debian_has_none():
    assert "fc-list : file" in SCRIPT.read_text(encoding="utf-8")  # not only the CJK ones


def test_git_is_hidden_after_the_clone():
    text = SCRIPT.read_text(encoding="utf-8")
    programs = re.search(r"^for program in (.*); do$", text, re.M)[1].split()
    assert {"bwrap", "podman", "chromium", "git"} <= set(programs)
    assert text.index("git clone") < text.index("for program in")


def test_the_tests_run_as_a_new_user_without_network_home_or_locale():
    commands = inside()
    tests = commands[commands.index("chown") :]
    assert "make .venv/.installed-test" in commands[: commands.index("chown")]
    assert "unshare --net" in tests and "ip link set lo up" in tests
    assert "setpriv --reuid=nobody" in tests
    assert "umask 077" in tests  # a cautious user's: files only they may read
    assert 'env -i PATH="$PATH" HOME="$scratch/home" PYTHONSTARTUP=' in tests


def test_the_clone_and_the_home_are_a_new_users_not_this_machines():
    """A folder name with a space and non-ASCII letters, a deep TMPDIR, and a home with the
    settings no stored output may depend on (tests/test_user_settings.py)."""
    text = SCRIPT.read_text(encoding="utf-8")
    assert 'git clone --quiet "$here" "$scratch/my course ü/课程 kit"' in text
    assert 'cd "$scratch/my course ü/课程 kit"' in inside()
    assert "TMPDIR=" in inside()
    for setting in ("figure.dpi", "figure_formats", "profile_default/startup", "startup.py"):
        assert setting in text
