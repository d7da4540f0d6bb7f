"""The instructor guide's tutorial works as written: "Your first assignment, step by step".

Its files (a paragraph ``File `PATH`:`` followed by a fenced block) are written and its
``bash`` blocks run, line by line and in the order of the text, in a scratch project holding
only what a checkout gives a new assignment: the Makefile, the test helpers and an empty
``notebooks/source/``. The scratch project links to this checkout's ``.venv``, whose install
stamps are current, so ``make course`` installs nothing. One build, one release and one grade
of three submissions: correct (full marks), wrong (partial) and untouched (zero).
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autogradkit._i18n import catalog
from autogradkit.grading.observations import stopped_reason
from autogradkit_instructor import cli

ROOT = Path(__file__).resolve().parents[1]
NAME = "08_my_quiz"
STEP = re.compile(
    r"^File `(?P<path>[^`]+)`:\n\n```\w*\n(?P<text>.*?)^```$|^```bash\n(?P<commands>.*?)^```$",
    re.M | re.S,
)

pytestmark = [pytest.mark.notebook, pytest.mark.slow(17)]


def tutorial_steps(guide: str) -> list[tuple[str, str]]:
    """``("file", path, text)`` and ``("run", command)`` steps of the tutorial, in order."""
    section = guide.split("## Your first assignment, step by step", 1)[1].split("\n## ", 1)[0]
    steps = []
    for found in STEP.finditer(section):
        if found["path"]:
            steps.append(("file", found["path"], found["text"]))
        for line in (found["commands"] or "").splitlines():
            command, _, comment = (part.strip() for part in line.partition("#"))
            code = re.match(r"exits with (\d)", comment)  # what the text says it exits with
            if command:
                steps.append(("run", command, int(code[1]) if code else 0))
    return steps


STEPS = tutorial_steps((ROOT / "docs" / "instructor_guide.md").read_text(encoding="utf-8"))
GRADING = next(i for i, s in enumerate(STEPS) if s[0] == "run" and "autogradkit grade" in s[1])


def _run(steps, project: Path) -> dict[str, str]:
    """Write each file, run each command; what each command printed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS", "PYTEST"))}
    printed = {}
    for step in steps:
        if step[0] == "file":
            target = project / step[1]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(step[2], encoding="utf-8")
            continue
        done = subprocess.run(
            step[1], shell=True, cwd=project, env=env, capture_output=True, text=True
        )
        assert done.returncode == step[2], f"{step[1]}\n{done.stdout}\n{done.stderr}"
        printed[step[1]] = done.stdout
    return printed


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """The scratch project after the tutorial's steps up to grading."""
    project = tmp_path_factory.mktemp("guide") / "project"
    (project / "notebooks" / "source").mkdir(parents=True)
    for name in ("Makefile", "pyproject.toml", "notebooks/source/jupytext.toml"):
        shutil.copy2(ROOT / name, project / name)
    (project / "tests" / "notebooks").mkdir(parents=True)
    for name in (
        "__init__.py",
        "conftest.py",
        "optional.py",
        "notebooks/__init__.py",
        "notebooks/exercises.py",
    ):
        shutil.copy2(ROOT / "tests" / name, project / "tests" / name)
    real_venv = Path(sys.prefix)
    stamp = real_venv / ".installed-lab"
    if not (stamp.is_file() and stamp.stat().st_mtime >= (ROOT / "pyproject.toml").stat().st_mtime):
        pytest.fail("run `make test` (it installs the kit): make must find nothing to install")
    (project / ".venv").symlink_to(real_venv)
    _run(STEPS[:GRADING], project)
    return project


def test_the_tutorial_writes_the_three_files_and_runs_each_step():
    files = [s[1] for s in STEPS if s[0] == "file"]
    assert files == [
        f"notebooks/source/{NAME}/{NAME}.py",
        f"notebooks/source/{NAME}/checks.py",
        "tests/notebooks/test_exercises_08.py",
    ]
    commands = [s[1].split()[:2] for s in STEPS if s[0] == "run"]
    assert commands[0] == ["make", "course"]
    for verb in ("build", "validate", "release", "grade", "export"):
        assert [".venv/bin/autogradkit", verb] in commands, verb
    assert ["make", "report"] in commands


def test_the_assignment_is_built_tested_validated_and_released(project):
    course = project / "notebooks"
    assert (course / "source" / NAME / f"{NAME}.ipynb").is_file()
    assert (course / "source" / NAME / ".expected.json").is_file()
    assert 'id="08-my-quiz"' in (course / "source" / NAME / f"{NAME}.py").read_text("utf-8")
    release = course / "release" / NAME
    assert "BEGIN SOLUTION" not in (release / f"{NAME}.ipynb").read_text("utf-8")
    assert "hidden=True" not in (release / "checks.py").read_text("utf-8")


def test_the_house_style_is_not_asked_of_it_but_can_be(project, capsys):
    argv = ["check-course", "--course", str(project / "notebooks"), "--assignment", NAME]
    assert cli.main(argv) == 1
    assert f"{NAME}: [three-exercises] 2 answer cells, 2 test cells" in capsys.readouterr().out


@pytest.mark.needs("bubblewrap")
def test_grading_gives_full_partial_and_no_marks_then_exports(project):
    printed = _run(STEPS[GRADING:], project)
    grades = project / "notebooks" / "grades" / NAME
    with (grades / "gradebook.csv").open(encoding="utf-8") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    scores = {
        student: (row["status"], row["score"], row["nb08_ex1_test"], row["nb08_ex2_test"])
        for student, row in rows.items()
    }
    assert scores == {
        "alice": ("ok", "4.0", "2.0", "2.0"),
        "bob": ("ok", "2.0", "2.0", "0.0"),
        "carol": ("ok", "0.0", "0.0", "0.0"),
    }
    exported = (grades / f"{NAME}_canvas.csv").read_text(encoding="utf-8")
    assert all(student in exported for student in rows)
    assert list((project / "notebooks" / "feedback" / "bob" / NAME).glob("*.html"))
    assert (grades / "report.html").is_file()
    validated = next(out for command, out in printed.items() if "validate" in command)
    assert f"with the released files of notebooks/release/{NAME}" in validated  # not NameError
    assert validated.count("not answered yet") == 2 and "0 / 4 points" in validated
    alices = next(
        out for command, out in printed.items() if "validate" in command and "alice" in command
    )
    assert "has no attribute 'gradient_of_square_on_a_matrix'" in alices, (
        alices
    )  # as the guide says
    assert "2 / 4 points" in alices


def test_releasing_again_names_what_it_left_unchanged(project, capsys):
    """A release of a notebook nobody touched says so: it printed "released" for every
    notebook of a course, though it rewrote none of them (a new instructor took that for a
    release that had rewritten the whole course)."""
    course = project / "notebooks"
    notebook = course / "release" / NAME / f"{NAME}.ipynb"
    assert cli.main(["release", "--course", str(course), NAME]) == 0
    said = capsys.readouterr().err
    assert f"unchanged {notebook}" in said and "released" not in said, said


def test_every_limit_in_help_names_its_default():
    """``autogradkit grade --help`` is where the guide sends an instructor for the options; a
    new instructor grading a submission that loops could not find there how long a cell may
    run (``--timeout``: "Seconds per cell.", its 30 s written nowhere). Each option whose value
    has a default names it."""
    commands = next(
        a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction)
    )
    unnamed = []
    for name, sub in commands.choices.items():
        formatter = sub._get_formatter()
        for action in sub._actions:
            if action.default in (None, False, argparse.SUPPRESS) or action.nargs == 0:
                continue
            if "default" not in formatter._expand_help(action):
                unnamed.append(f"{name} {action.option_strings or action.dest}")
    assert not unnamed, unnamed


def test_an_answer_that_never_ends_is_told_so_in_any_exercise():
    """A made-up submission whose ``sigmoid_slope`` loops forever got "your code did not
    finish in time (does it visit a node more than once?)": a graph walk's hint, in an
    exercise with no graph. The reason names the loop, and keeps the graph walk's case."""
    for language in ("en", "zh-CN", "zh-TW"):
        said = stopped_reason({"reason": "timeout"}, catalog(language))
        loop, node = {"en": ("a loop that never ends", "node"), "zh-CN": ("循环", "节点")}.get(
            language, ("迴圈", "節點")
        )
        assert loop in said and node in said, said
