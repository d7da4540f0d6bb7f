"""The base install (``pip install autogradkit``: NumPy alone) imports, draws graphs, and runs
every notebook's checks (the instructor's toolchain is not needed in a kernel).

The venv here holds the kit and NumPy, and nothing else: made offline in a second (no pip,
no index), with the package and this environment's NumPy linked into its site-packages (what
an editable install's path entry gives). Progress bars, widgets and figures need the lab
extra, and say how to install it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import autogradkit
from autogradkit.viz.extras import LAB_INSTALL

LAB_PACKAGES = ("tqdm", "ipywidgets", "matplotlib", "IPython", "babel", "nbformat")
SCRIPT = """\
import importlib.util, json
import autogradkit as agk
import autogradkit.viz as viz

found = {"lab_packages": [m for m in %r if importlib.util.find_spec(m)]}
x = agk.tensor([1.0, 2.0], requires_grad=True)
drawing = viz.draw_graph((x * 3).sum(), {"x": x})
found["svg"] = drawing._repr_svg_()
for name, make in [
    ("progress", lambda: viz.progress(range(3))),
    ("widget", lambda: viz.BackpropStepper((x * 3).sum())),
    ("figure", lambda: drawing.figure()),
]:
    try:
        make()
        found[name] = "made"
    except ImportError as error:
        found[name] = str(error)
print(json.dumps(found))
"""


def _link(module_folder: Path, site_packages: Path) -> None:
    for path in (module_folder, module_folder.with_name(f"{module_folder.name}.libs")):
        if path.exists():  # numpy.libs: the shared libraries of a manylinux wheel
            (site_packages / path.name).symlink_to(path)


@pytest.fixture(scope="module")
def base_python(tmp_path_factory) -> str:
    """A venv's python that sees the standard library, autogradkit and NumPy alone."""
    venv = tmp_path_factory.mktemp("base") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    where = [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]
    site_packages = Path(subprocess.run(where, capture_output=True, text=True).stdout.strip())
    _link(Path(autogradkit.__file__).parent, site_packages)
    _link(Path(np.__file__).parent, site_packages)
    return python


def test_viz_imports_and_draws_with_numpy_alone_and_the_rest_names_the_lab_extra(
    base_python, tmp_path
):
    script = SCRIPT % (LAB_PACKAGES,)
    done = subprocess.run([base_python, "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["lab_packages"] == []  # the venv really is bare
    assert found["svg"].startswith("<svg") and ">MulBackward0<" in found["svg"]
    assert found["progress"] == f"tqdm is not installed: it comes with the lab extra, {LAB_INSTALL}"
    assert (
        found["widget"].startswith("ipywidgets is not installed") and LAB_INSTALL in found["widget"]
    )
    assert (
        found["figure"].startswith("matplotlib is not installed") and LAB_INSTALL in found["figure"]
    )


CHECKS = """\
import importlib.util, json, sys
import autogradkit as agk

x = agk.tensor([1.0, 2.0], requires_grad=True)
(x * x).sum().backward()
for path in sys.argv[1:]:
    spec = importlib.util.spec_from_file_location("checks", path)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
print(json.dumps({"grad": x.grad.tolist(), "modules": sorted(sys.modules)}))
"""


def test_every_notebooks_checks_import_without_the_instructor_toolchain(base_python, tmp_path):
    """A student's kernel needs the library and its check API alone: the venv here has not
    the toolchain (``autogradkit_instructor``) nor any of its dependencies."""
    root = Path(autogradkit.__file__).resolve().parents[1]
    checks = sorted((root / "notebooks" / "release").glob("*/checks.py"))
    assert len(checks) >= 8
    argv = [base_python, "-c", CHECKS, *map(str, checks)]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["grad"] == [2.0, 4.0]
    assert "autogradkit.grading.checks" in found["modules"]
    assert not {"autogradkit_instructor", "nbformat", "nbclient"} & set(found["modules"])
