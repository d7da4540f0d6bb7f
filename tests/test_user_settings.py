"""A notebook's stored outputs are the course's, never its maker's machine's: the settings a
user keeps in their home (a matplotlibrc, an IPython profile's kernel config and startup
files, ``PYTHONSTARTUP``) change nothing that ``build`` and ``release`` store or that nbval
compares. A new instructor with ``figure.dpi: 150`` in their matplotlibrc would otherwise
rewrite every figure of every notebook they build, and ``make test`` would fail on their
machine (nbval: ``<Figure size 1300x760 ...>``, or ``image/svg+xml`` where PNG was stored).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

from autogradkit_instructor import build

ROOT = Path(__file__).resolve().parents[1]

FIGURE = """\
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(2, 1))
ax.plot([0, 1])
plt.show()
"""
PROBE = "print(sorted(k for k in ('STARTUP_RAN', 'PROFILE_RAN') if k in globals()))"


@pytest.fixture
def settings_home(tmp_path, monkeypatch):
    """A home with the settings a user of matplotlib and Jupyter may well keep."""
    home = tmp_path / "home"
    (home / ".config" / "matplotlib").mkdir(parents=True)
    (home / ".config" / "matplotlib" / "matplotlibrc").write_text("figure.dpi: 50\n")
    profile = home / ".ipython" / "profile_default"
    (profile / "startup").mkdir(parents=True)
    (profile / "startup" / "00-mine.py").write_text("PROFILE_RAN = True\n")
    (profile / "ipython_kernel_config.py").write_text("c.InlineBackend.figure_formats = {'svg'}\n")
    (home / "startup.py").write_text("STARTUP_RAN = True\n")
    for name in ("MPLCONFIGDIR", "MATPLOTLIBRC", "IPYTHONDIR", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PYTHONSTARTUP", str(home / "startup.py"))
    return home


def _outputs(nb):
    return [output for cell in nb.cells for output in cell.get("outputs", [])]


@pytest.mark.notebook
def test_build_stores_the_same_outputs_whatever_the_makers_settings(settings_home, tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(FIGURE), nbformat.v4.new_code_cell(PROBE)]
    build.execute(nb, tmp_path, timeout=60)
    figure, probe = _outputs(nb)
    assert set(figure["data"]) == {"image/png", "text/plain"}  # not the profile's svg
    assert figure["data"]["text/plain"] == "<Figure size 200x100 with 1 Axes>"  # dpi 100
    assert probe["text"] == "[]\n"  # neither startup file ran


@pytest.mark.notebook
def test_nbval_compares_what_build_stored_whatever_the_users_settings(settings_home, tmp_path):
    """nbval starts its kernels with pytest's environment: tests/conftest.py makes it
    settings-free, as build's kernels are."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(FIGURE), nbformat.v4.new_code_cell(PROBE)]
    build.execute(nb, tmp_path, timeout=60)
    nbformat.write(nb, tmp_path / "figure.ipynb")
    nbval = [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider"]
    nbval += ["--nbval", "--nbval-current-env", "-q", str(tmp_path / "figure.ipynb")]
    ran = subprocess.run(nbval, cwd=ROOT, capture_output=True, text=True, env=os.environ)
    assert ran.returncode == 0, ran.stdout[-3000:]
    assert "2 passed" in ran.stdout


def test_kernel_sockets_fit_however_deep_the_temporary_folder(tmp_path, monkeypatch):
    """ZeroMQ's ipc socket paths hold 107 bytes: with a CI runner's deep TMPDIR, grading
    started no kernel ("File name too long")."""
    from autogradkit_instructor.kernels import ForkLauncher, socket_folder

    deep = tmp_path / ("a-deep-temporary-folder-" * 3)
    deep.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    assert socket_folder() == "/tmp"
    launcher = ForkLauncher()
    try:  # the longest socket: <folder>/tmpXXXXXXXX-5
        assert len(os.fsencode(launcher._folder)) + len("/tmpXXXXXXXX-5") < 107
    finally:
        launcher.close()


@pytest.mark.notebook
def test_build_stores_no_warning_when_the_home_cannot_be_written(tmp_path, monkeypatch):
    """A HOME that does not exist, or that is read-only (a lab machine's, a CI runner's, a
    container's as nobody), gave matplotlib no folder: it warned, naming a temporary folder of
    random name, in the first figure cell, so each build stored other bytes, and nbval failed."""
    (tmp_path / "a-file").write_text("")
    for name in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "a-file" / "home"))  # not even root can make it
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(FIGURE)]
    build.execute(nb, tmp_path, timeout=60)
    assert [output["output_type"] for output in _outputs(nb)] == ["display_data"]
