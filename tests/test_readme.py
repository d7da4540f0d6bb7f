"""Every shell command of the README's instructor section works as written.

Each fenced ``bash`` line of "For instructors" runs, in order, in a scratch copy of the project
whose course holds one assignment and one student's submission. The copy links to this
checkout's ``.venv``, whose install stamps are current, so make installs nothing and the real
course is never touched.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT = "01_backprop_by_hand"

pytestmark = [pytest.mark.notebook, pytest.mark.slow(19)]


def instructor_commands(readme: str) -> list[str]:
    """The command lines of the ```bash blocks under "## For instructors" (comments dropped)."""
    section = readme.split("## For instructors", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, flags=re.DOTALL)
    lines = (line.split("#", 1)[0].strip() for block in blocks for line in block.splitlines())
    return [line for line in lines if line]


@pytest.fixture
def scratch_project(tmp_path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy2(ROOT / name, project / name)
    real_venv = Path(sys.prefix)
    stamp = real_venv / ".installed-lab"
    if not (stamp.is_file() and stamp.stat().st_mtime >= (ROOT / "pyproject.toml").stat().st_mtime):
        pytest.fail("run `make test` (it installs the kit): make must find nothing to install")
    (project / ".venv").symlink_to(real_venv)
    source = ROOT / "notebooks" / "source" / ASSIGNMENT
    shutil.copytree(source, project / "notebooks" / "source" / ASSIGNMENT)
    submission = project / "notebooks" / "submitted" / "alice" / ASSIGNMENT
    submission.mkdir(parents=True)
    release = ROOT / "notebooks" / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    shutil.copy(release, submission / release.name)
    return project


def test_the_instructor_section_sets_up_then_names_the_three_commands():
    commands = instructor_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert [c.split()[:2] for c in commands] == [
        ["make", "course"],
        ["make", "release"],
        ["make", "grade"],
        ["make", "report"],
        ["make", "validate"],
    ]


@pytest.mark.needs("bubblewrap")  # make grade grades in its default sandbox
def test_each_instructor_command_runs_as_written(scratch_project):
    commands = instructor_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}
    for command in commands:
        done = subprocess.run(
            command, shell=True, cwd=scratch_project, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    course = scratch_project / "notebooks"
    assert (course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").is_file()
    gradebook = (course / "grades" / ASSIGNMENT / "gradebook.csv").read_text(encoding="utf-8")
    assert "alice" in gradebook
    assert list((course / "feedback" / "alice" / ASSIGNMENT).glob("*.html"))
    assert "data:image/png;base64," in (course / "grades" / ASSIGNMENT / "report.html").read_text()


def test_a_python_without_venv_leaves_no_half_made_venv_behind(tmp_path):
    """Debian's python3 makes venvs only with its python3-venv package: without it, ``python3
    -m venv`` fails after making ``.venv/bin/python``. That half venv must go, or the next
    ``make course`` (python3-venv installed) skips the venv and fails with "No module named
    pip"."""
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy2(ROOT / name, tmp_path / name)
    debian = tmp_path / "python3"  # as Debian's does without python3-venv
    debian.write_text(
        '#!/bin/sh\nmkdir -p .venv/bin && ln -s "$(command -v false)" .venv/bin/python\n'
        "echo 'ensurepip is not available: apt install python3-venv' >&2\nexit 1\n"
    )
    debian.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}
    done = subprocess.run(
        ["make", "course", f"PYTHON={debian}"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0 and "python3-venv" in done.stderr
    assert not (tmp_path / ".venv").exists()
