"""The installed packages are the library and the toolchain: no reference answer, hidden check
or course data.

The wheel is built as ``pip install`` would build it. Then no solution of any source notebook
(each ``### BEGIN SOLUTION`` region, whole or any three consecutive lines of it), no hidden
test or hidden check, and no file of the course (``checks.py``, recorded answers, data) may
occur in it. The checks and their recorded answers live beside the notebooks.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from autogradkit._i18n import FONTS, LANGUAGES
from autogradkit_instructor import cells

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "notebooks" / "source"
MARKERS = [("BEGIN SOLUTION", "END SOLUTION"), ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS")]


def _secrets() -> list[str]:
    """Every solution and hidden region of the course: notebooks' text sources and checks."""
    found = []
    for path in sorted(COURSE.glob("*/*.py")):
        text = path.read_text(encoding="utf-8")
        for begin, end in MARKERS:
            found += [textwrap.dedent(r).strip() for r in cells.regions(text, begin, end)]
    return [region for region in found if region]


def _pieces(region: str) -> list[str]:
    """The region whole, and each three consecutive non-blank lines, spaces normalised (two
    lines can be an idiom the library rightly has: ``while stack: node = stack.pop()``)."""
    lines = [" ".join(line.split()) for line in region.splitlines() if line.strip()]
    windows = [" ".join(lines[i : i + 3]) for i in range(len(lines) - 2)]
    return [" ".join(lines), *windows]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    folder = tmp_path_factory.mktemp("wheel")
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    subprocess.run([*build, "-w", str(folder), str(ROOT)], check=True, capture_output=True)
    (path,) = folder.glob("autogradkit-*.whl")
    with zipfile.ZipFile(path) as archive:
        yield archive


def test_the_wheel_is_the_library_and_nothing_of_the_course(wheel):
    names = wheel.namelist()
    assert any(name == "autogradkit/grading/checks.py" for name in names)  # the API ships
    course_files = [
        name
        for name in names
        if "exercises" in name
        or name.endswith((".expected.json", ".ipynb", "/checks.py"))
        and name != "autogradkit/grading/checks.py"
    ]
    assert course_files == []
    assert not any(name.startswith(("notebooks/", "tests/")) for name in names)


def test_the_wheel_ships_both_packages_the_catalogs_and_the_command(wheel):
    """One distribution, two packages: the student's library (with the kit's catalogs, which
    are data files) and the instructor's toolchain, whose ``main`` is the ``autogradkit``
    command."""
    names = set(wheel.namelist())
    for language in LANGUAGES[1:]:
        assert f"autogradkit/grading/locale/{language}.po" in names
    assert {"autogradkit_instructor/cli.py", "autogradkit_instructor/steps/score.py"} <= names
    assert not any(name.startswith("autogradkit/grading/steps/") for name in names)
    (entry_points,) = [name for name in names if name.endswith(".dist-info/entry_points.txt")]
    scripts = wheel.read(entry_points).decode().split("[console_scripts]")[1]
    assert "autogradkit = autogradkit_instructor.__main__:main" in scripts


def test_no_solution_or_hidden_check_of_any_notebook_is_in_the_wheel(wheel):
    texts = {
        name: " ".join(wheel.read(name).decode("utf-8", errors="replace").split())
        for name in wheel.namelist()
        if name.endswith((".py", ".txt", ".json", ".md", ".cfg", ".toml", "METADATA"))
    }
    secrets = _secrets()
    assert len(secrets) >= 31, "one solution per exercise at least"
    for region in secrets:
        for piece in _pieces(region):
            leaked = [name for name, text in texts.items() if piece in text]
            assert not leaked, f"{piece!r} of a solution is in {leaked}"


def test_the_wheel_ships_each_editions_font_with_its_license(wheel):
    names = set(wheel.namelist())
    for font in FONTS.values():
        assert f"autogradkit/fonts/{font.file}" in names
    assert "autogradkit/fonts/OFL.txt" in names
