"""The course round trip, through the grading engineer's own entry point (``cli.main``):

- a fresh ``release`` of ``notebooks/source`` equals the committed ``notebooks/release``;
- grading the instructor notebooks (the solutions) gives full marks;
- grading the fresh student versions (nothing answered) gives zero, without any crash.

Every notebook is executed three times in all (release, grade solution, grade blank), on
two kernels at a time.
"""

from __future__ import annotations

import json
import shutil

import pytest

from autogradkit.grading import cli

from .conftest import ASSIGNMENTS, COURSE, comparable, read, release_path, source_path

pytestmark = [pytest.mark.notebook, pytest.mark.slow]


@pytest.fixture(scope="module")
def fresh_course(tmp_path_factory):
    """A copy of the course with a release made now, from the committed sources."""
    root = tmp_path_factory.mktemp("course")
    shutil.copytree(COURSE / "source", root / "source")
    assert cli.main(["release", "--course", str(root)]) == 0
    return root


@pytest.fixture(scope="module")
def gradebook(fresh_course):
    """{(assignment, student): row} for the students "solutions" and "blank"."""
    submitted = fresh_course / "submitted"
    rows = {}
    for name in ASSIGNMENTS:
        fresh = fresh_course / "release" / name / f"{name}.ipynb"
        for student, notebook in (("solutions", source_path(name)), ("blank", fresh)):
            folder = submitted / student / name
            folder.mkdir(parents=True)
            shutil.copy(notebook, folder / notebook.name)
        report = fresh_course / f"report-{name}.json"
        argv = [
            "grade",
            str(submitted),
            "--assignment",
            name,
            "--course",
            str(fresh_course),
            "-j",
            "2",
            "--report",
            str(report),
            "--no-progress",
        ]
        assert cli.main(argv) == 0
        for row in json.loads(report.read_text(encoding="utf-8"))["rows"]:
            rows[name, row["student"]] = row
    return rows


def _points(name: str) -> float:
    return sum(
        c.metadata["nbgrader"]["points"]
        for c in read(source_path(name)).cells
        if c.metadata.get("nbgrader", {}).get("grade")
    )


def test_the_text_sources_with_their_solutions_never_reach_the_release(fresh_course):
    """The release gets each notebook's checks.py, without its hidden checks, and never the
    notebook's text source (it holds the solutions)."""
    assert list((fresh_course / "source").rglob("*_*.py"))  # the sources were there to copy
    released = sorted((fresh_course / "release").rglob("*.py"))
    assert {p.name for p in released} == {"checks.py"}
    assert not any("BEGIN HIDDEN TESTS" in p.read_text() for p in released)
    hidden = [
        p for p in (fresh_course / "source").rglob("checks.py") if "hidden=True" in p.read_text()
    ]
    assert hidden and not any("hidden=True" in p.read_text() for p in released)


def test_release_writes_exactly_the_committed_files(fresh_course):
    fresh = sorted(
        p.relative_to(fresh_course / "release")
        for p in (fresh_course / "release").rglob("*")
        if p.is_file()
    )
    committed = sorted(
        p.relative_to(COURSE / "release") for p in (COURSE / "release").rglob("*") if p.is_file()
    )
    assert fresh == committed


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_release_copy_equals_a_fresh_release(fresh_course, name):
    fresh = fresh_course / "release" / name / f"{name}.ipynb"
    assert comparable(fresh) == comparable(release_path(name)), (
        "notebooks/release is stale: run `python -m autogradkit release --course notebooks`"
    )


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_solutions_get_full_marks(gradebook, name):
    row = gradebook[name, "solutions"]
    assert row["status"] == "ok", row["issues"]
    assert row["max_score"] == _points(name)
    assert row["score"] == row["max_score"], row["tests"]


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_unanswered_student_version_gets_zero_without_crashing(gradebook, name):
    row = gradebook[name, "blank"]
    assert row["status"] == "ok", row["issues"]
    assert row["score"] == 0 and row["max_score"] == _points(name)
    assert {test["status"] for test in row["tests"].values()} == {"failed"}
