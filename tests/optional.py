"""The optional packages some tests need: one probe each, and a skip that names its installer.

``make test`` passes on a machine with only Python and make. A test that needs one of these
says so, and is skipped (with the reason, which names the script that installs the package)
where the probe fails:

    pytestmark = pytest.mark.needs("chromium")        # a module, a class or a test
    torch = import_or_skip("torch")                   # a module that imports it
    skip_unless("bubblewrap")                         # in a fixture
    skip_module_unless("git")                         # before a module's collection needs it

tests/conftest.py reads the ``needs`` marker. ``.ci/run`` installs every package and fails on
any skip outside tests/allowed_skips.txt, so CI runs every one of these tests;
``tools/without_optional_packages.sh`` runs ``make test`` with all of them out of sight.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autogradkit._i18n import FONTS

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")  # Debian's, which playwright drives (never its own)
NBGRADER_VENV = ROOT / ".venv" / "nbgrader"


def _bubblewrap() -> str | None:
    from autogradkit_instructor.sandbox import Bubblewrap, Limits, SandboxUnavailable

    if shutil.which("bwrap") is None:
        return "bwrap is not installed"
    try:
        Bubblewrap(Limits(memory_mb=1024)).check()
    except SandboxUnavailable as error:
        return str(error)
    return None


def _podman() -> str | None:
    from autogradkit_instructor.container import Container
    from autogradkit_instructor.sandbox import Limits, SandboxUnavailable

    if shutil.which("podman") is None:
        return "podman is not installed"
    try:
        Container("podman", Limits(memory_mb=1024)).check()
    except SandboxUnavailable as error:
        return str(error)
    return None


def _chromium() -> str | None:
    if shutil.which(CHROMIUM) is None:  # a program there: a file that can be run
        return f"no {CHROMIUM}"
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed"
    return None


def _cjk_font() -> str | None:
    """The system's CJK font (fontconfig's), which Chromium draws Chinese with: only the
    real-browser test needs it."""
    if shutil.which("fc-list") is None:
        return "fontconfig (fc-list) is not installed"
    family = FONTS["zh-CN"].source  # the full font a system has, not the kit's subset
    listed = subprocess.run(["fc-list", f":family={family}", "family"], capture_output=True)
    return None if listed.stdout.strip() else f"fontconfig finds no {family}"


def nbgrader_python() -> str | None:
    """A Python that imports nbgrader: this one, ``$NBGRADER_PYTHON``, or the venv that
    tools/install_nbgrader.sh makes (nbgrader's pins stay out of the kit's venv)."""
    if importlib.util.find_spec("nbgrader") is not None:
        return sys.executable
    for candidate in (os.environ.get("NBGRADER_PYTHON"), NBGRADER_VENV / "bin" / "python"):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    return None


def _nbgrader() -> str | None:
    return None if nbgrader_python() else "nbgrader is not installed"


def _git() -> str | None:
    """git, and this checkout a clone: the tests that read every tracked file list them."""
    if shutil.which("git") is None:
        return "git is not installed"
    inside = subprocess.run(["git", "-C", str(ROOT), "ls-files", "README.md"], capture_output=True)
    return None if inside.stdout.strip() else "this folder is not a git clone"


def _torch() -> str | None:
    return None if importlib.util.find_spec("torch") else "torch is not installed"


# name: (what it is, its probe (None or why it cannot be used), the script that installs it)
PACKAGES = {
    "bubblewrap": ("bubblewrap, the grader's sandbox", _bubblewrap, "install_bubblewrap.sh"),
    "podman": ("Podman, the container sandbox", _podman, "install_podman.sh"),
    "chromium": ("Chromium and playwright", _chromium, "install_browser.sh"),
    "cjk_font": ("a CJK font in the browser", _cjk_font, "install_fonts.sh"),
    "nbgrader": ("nbgrader's own validator", _nbgrader, "install_nbgrader.sh"),
    "git": ("git, to list the repository's tracked files", _git, "install_git.sh"),
    "torch": ("PyTorch, the parity oracle", _torch, "install_torch.sh"),
}


@functools.cache
def missing(name: str) -> str | None:
    """Why the optional package ``name`` cannot be used here (the skip's reason), or None."""
    what, probe, script = PACKAGES[name]
    why = probe()
    return None if why is None else f"needs {what} ({why}): run tools/{script}"


def skip_unless(*names: str) -> None:
    """Skip the running test (or fixture) unless every package of ``names`` can be used."""
    for name in names:
        if reason := missing(name):
            pytest.skip(reason)


def import_or_skip(module: str):
    """``import module`` (an optional package), or skip the whole test module that asks."""
    if reason := missing(module):
        pytest.skip(reason, allow_module_level=True)
    return importlib.import_module(module)


def skip_module_unless(*names: str) -> None:
    """Skip the whole test module that asks, unless every package of ``names`` can be used
    (for a module whose collection already needs one)."""
    for name in names:
        if reason := missing(name):
            pytest.skip(reason, allow_module_level=True)
