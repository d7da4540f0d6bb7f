"""``make release`` and ``make notebooks`` take ``ASSIGNMENT=NAME``: that assignment alone, in
English and in each language it is translated into; without it, every assignment.

The commands make would run (``make -n``) are read, in a scratch course with one translated
and one untranslated assignment; nothing is executed.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def course(tmp_path) -> Path:
    for name, translations in (("01_both", ["zh-CN"]), ("02_english", [])):
        folder = tmp_path / "source" / name
        folder.mkdir(parents=True)
        (folder / f"{name}.py").write_text("# %%\n", encoding="utf-8")
        for language in translations:
            (folder / f"{name}.{language}.md").write_text("", encoding="utf-8")
    return tmp_path


def planned(course: Path, *arguments: str) -> list[list[str]]:
    """The ``autogradkit`` commands ``make -n ARGUMENTS`` would run, as argument lists."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}
    command = ["make", "-n", "--no-print-directory", f"COURSE={course}", *arguments]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    runs = [part.split() for part in done.stdout.replace("&&", "\n").splitlines()]
    command = ".venv/bin/autogradkit"  # the Makefile's $(AGK)
    return [run[run.index(command) + 1 :] for run in runs if command in run]


def test_release_of_one_assignment_releases_it_in_each_of_its_languages(course):
    runs = planned(course, "release", "ASSIGNMENT=01_both")
    assert [(run[run.index("--lang") + 1], run[-1]) for run in runs] == [
        ("en", "01_both"),
        ("zh-CN", "01_both"),
    ]


def test_an_untranslated_assignment_is_released_in_english_alone(course):
    runs = planned(course, "release", "ASSIGNMENT=02_english")
    assert [(run[run.index("--lang") + 1], run[-1]) for run in runs] == [("en", "02_english")]


def test_release_without_an_assignment_releases_them_all_in_every_language(course):
    runs = planned(course, "release")
    assert [run[run.index("--lang") + 1] for run in runs] == ["en", "zh-CN"]
    assert all(run[-2] == "--lang" for run in runs)  # no assignment named: all of them


def test_notebooks_builds_then_releases_the_one_assignment(course):
    runs = planned(course, "notebooks", "ASSIGNMENT=02_english")
    assert runs[0] == ["build", "--course", str(course), "02_english"]
    assert [run[-1] for run in runs[1:]] == ["02_english"]


def test_release_makes_the_zh_tw_texts_from_zh_cn_first(course):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}
    command = ["make", "-n", "--no-print-directory", f"COURSE={course}", "release"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    lines = done.stdout.replace("&&", "\n").splitlines()
    made = [i for i, line in enumerate(lines) if "tools/make_zh_tw.py" in line]
    released = [i for i, line in enumerate(lines) if "autogradkit release" in line]
    assert made and released and made[0] < released[0]
    assert f"--course {course}" in lines[made[0]]


def test_a_name_with_a_space_is_refused_with_the_command_that_takes_it(course):
    """make splits words on spaces: ``week 3`` would release ``week`` and ``3``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}
    for target in ("release", "notebooks", "grade", "report"):
        command = ["make", "-n", f"COURSE={course}", target, "ASSIGNMENT=week 3"]
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        assert done.returncode != 0 and "autogradkit" not in done.stdout, target
        assert "ASSIGNMENT='week 3'" in done.stderr and "--assignment 'week 3'" in done.stderr


def test_validate_looks_in_the_course_make_is_pointed_at(course):
    """``COURSE=DIR`` points every target at DIR: ``validate`` finds a collected submission's
    released files there; without it, in the course the notebook sits in."""
    assert planned(course, "validate", "NB=hand-in/ann.ipynb") == [
        ["validate", "hand-in/ann.ipynb", "--course", str(course)]
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS", "COURSE"))}
    command = ["make", "-n", "--no-print-directory", "validate", "NB=hand-in/ann.ipynb"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert done.stdout.split()[-2:] == ["validate", "hand-in/ann.ipynb"]
