"""End to end through ``cli.main``: grade every kind of submission, release, validate, resume."""

from __future__ import annotations

import argparse
import hashlib
import importlib.machinery
import json
import shutil
import subprocess
import sys
import types

import nbformat
import pytest

from autogradkit_instructor.cli import build_parser, main

from . import builders
from .helpers import code, notebook

pytestmark = pytest.mark.slow(21)  # grade and validate runs, each with its kernels

KINDS = list(builders.EXPECTED)
FAST = ["--timeout", "3", "--interrupt-grace", "1", "-j", "2", "--no-progress"]


def _hashes(folder):
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.rglob("*") if p.is_file()}


def _rows(course):
    book = json.loads((course / "grades" / "hw1" / "gradebook.json").read_text())
    return {r["student"]: r for r in book["rows"]}


@pytest.fixture(scope="module")
def graded(tmp_path_factory, sandbox):
    """One grading run over every kind of submission (shared: it is the slow part)."""
    course = tmp_path_factory.mktemp("course")
    builders.write_course(course)
    for kind in KINDS:
        builders.write_submission(course / "submitted", kind, kind)
    before = _hashes(course / "submitted")
    code = main(
        ["grade", str(course / "submitted"), "--assignment", "hw1", "--course", str(course), *FAST]
    )
    return course, code, before


def test_every_submission_gets_a_row_with_the_right_status_and_points(graded):
    course, code, _ = graded
    rows = _rows(course)
    assert code == 0 and sorted(rows) == sorted(KINDS)
    for kind, (status, points) in builders.EXPECTED.items():
        got = {gid: t["points"] for gid, t in rows[kind]["tests"].items()}
        assert (rows[kind]["status"], got) == (status, points), kind
        assert rows[kind]["max_score"] == 10.0


def test_tampering_and_deleting_are_reported(graded):
    rows = _rows(graded[0])
    assert "test cell test_square_sum was changed" in rows["tampered_test"]["issues"][0]
    assert "test cell test_gradient was deleted" in rows["deleted_test"]["issues"][0]


def test_originals_are_never_modified(graded):
    course, _, before = graded
    assert _hashes(course / "submitted") == before


def test_graded_copies_run_the_hidden_tests(graded):
    course = graded[0]
    copy = (course / "autograded" / "correct" / "hw1" / "squares.ipynb").read_text()
    assert '"check": "square_sum_of_negatives"' in copy  # the hidden check reported
    assert (course / "autograded" / "correct" / "hw1" / "data.txt").is_file()


def test_feedback_never_shows_hidden_test_source(graded):
    course = graded[0]
    pages = sorted((course / "feedback").rglob("*.html"))
    assert len(pages) == len(KINDS)
    hidden = [
        line
        for code in (*builders.TESTS.values(), builders.CHECKS)
        if "### BEGIN HIDDEN TESTS" in code
        for line in code.split("### BEGIN HIDDEN TESTS\n")[1].split("\n### END")[0].splitlines()
        if len(line.strip()) > 4
    ]
    for page in pages:
        text = page.read_text()
        assert "BEGIN HIDDEN" not in text and builders.HIDDEN_MARK not in text
        assert not any(line.strip() in text for line in hidden)
    wrong = (course / "feedback" / "wrong" / "hw1" / "squares.html").read_text()
    assert "✗ hidden tests failed" in wrong  # hidden checks: their verdict only
    assert "✗ failed" in wrong  # an assert cell with hidden tests: its verdict only


def test_csv_has_one_column_per_test(graded):
    lines = (graded[0] / "grades" / "hw1" / "gradebook.csv").read_text().splitlines()
    assert lines[0].split(",")[:9] == [
        "student",
        "assignment",
        "notebook",
        "status",
        "score",
        "max_score",
        "test_gradient",
        "test_mse",
        "test_square_sum",
    ]
    assert len(lines) == 1 + len(KINDS)


def test_regrading_only_grades_new_or_changed_submissions(graded, tmp_path, capsys):
    """On a copy of the graded course: the other tests read the shared one as graded once."""
    course = tmp_path / "course"
    shutil.copytree(graded[0], course)
    args = [
        "grade",
        str(course / "submitted"),
        "--assignment",
        "hw1",
        "--course",
        str(course),
        *FAST,
    ]
    assert main(args) == 0
    assert "graded 0 of 10" in capsys.readouterr().out
    builders.write_submission(course / "submitted", "wrong", "correct")
    builders.write_submission(course / "submitted", "newcomer", "correct")
    assert main(args) == 0
    assert "graded 2 of 11" in capsys.readouterr().out
    assert _rows(course)["wrong"]["score"] == 10.0


def test_release_then_grade_solution_and_fresh_release(course, tmp_path, sandbox):
    assert main(["release", "--course", str(course)]) == 0
    released = course / "release" / "hw1" / "squares.ipynb"
    first = released.read_bytes()
    nbformat.validate(nbformat.reads(first.decode(), as_version=4))
    assert main(["release", "hw1", "--course", str(course)]) == 0
    assert released.read_bytes() == first  # deterministic
    assert (course / "release" / "hw1" / "data.txt").is_file()
    assert builders.HIDDEN_MARK not in first.decode() and "BEGIN SOLUTION" not in first.decode()
    flat = tmp_path / "flat"
    flat.mkdir()
    shutil.copy(released, flat / "fresh.ipynb")
    shutil.copy(course / "source" / "hw1" / "squares.ipynb", flat / "solution.ipynb")
    assert main(["grade", str(flat), "--assignment", "hw1", "--course", str(course), *FAST]) == 0
    rows = _rows(course)
    assert (rows["solution"]["status"], rows["solution"]["score"]) == ("ok", 10.0)
    assert (rows["fresh"]["status"], rows["fresh"]["score"]) == ("ok", 0.0)


def test_validate_reports_tests_and_changed_locked_cells(course, tmp_path, capsys):
    source = course / "source" / "hw1" / "squares.ipynb"
    assert main(["validate", str(source), "--timeout", "10"]) == 0
    assert "✓ test_mse (5/5)" in capsys.readouterr().out
    tampered = builders.write_submission(course / "submitted", "x", "tampered_test")
    report = tmp_path / "report.json"
    assert main(["validate", str(tampered), "--report", str(report)]) == 1
    out = capsys.readouterr().out
    assert "warning: test cell test_square_sum was changed" in out
    assert json.loads(report.read_text())["issues"] == [
        "test cell test_square_sum was changed; it will be restored from the original when graded"
    ]


def test_validate_runs_the_notebook_in_a_sandbox_unless_told_not_to(tmp_path, sandbox, capsys):
    """An instructor may validate a student's notebook: its code is as hostile there as when
    graded. ``--sandbox none`` (a student's own laptop) runs it as the caller."""
    confined = f"import os\nassert os.getuid() == 1000 and not os.path.exists({str(tmp_path)!r})"
    nb = notebook(code(confined, grade_id="t", grade=True, locked=True, points=1))
    path = tmp_path / "probe.ipynb"
    nbformat.write(nb, path)
    assert main(["validate", str(path), "--timeout", "20"]) == 0
    assert main(["validate", str(path), "--timeout", "20", "--sandbox", "none"]) == 1
    assert "✗ t (0/1): AssertionError" in capsys.readouterr().out


def test_bad_command_lines_and_missing_assignments(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["grade", str(tmp_path)])  # --assignment is required
    assert exit_info.value.code == 2
    assert main(["grade", str(tmp_path), "--assignment", "nope", "--course", str(tmp_path)]) == 1
    assert "no assignment 'nope'" in capsys.readouterr().err


def test_validate_finds_the_course_files_a_collected_submission_needs(course, capsys):
    """A collected submission has no ``checks.py`` beside it: ``--course`` (or running inside
    the course) gives it the assignment's released files, as ``grade`` does."""
    path = builders.write_submission(course / "submitted", "alice", "correct")
    assert not (path.parent / "checks.py").exists()
    args = ["validate", str(path), "--timeout", "20", "--sandbox", "none"]
    main([*args, "--course", str(course)])
    out = capsys.readouterr().out  # the student's version: test_mse's hidden half is not in it
    assert "✓ test_square_sum (2/2)" in out and "7.5 / 10 points; status ok" in out, out
    assert not (path.parent / "checks.py").exists()  # the submission's folder is left alone


def test_validate_finds_them_when_the_setup_cell_is_not_locked(course, capsys):
    """The guide's tutorial and the shipped course import ``checks`` in a cell with no nbgrader
    header: validate looked only at locked cells, ran the submission where it lay, and said
    ``NameError: name 'checks' is not defined ... status ok``."""
    path = builders.write_submission(course / "submitted", "alice", "correct")
    nb = json.loads(path.read_text())
    setup = next(c for c in nb["cells"] if "import checks" in c["source"])
    setup["metadata"] = {}
    path.write_text(json.dumps(nb))
    args = ["validate", str(path), "--timeout", "20", "--sandbox", "none"]
    main([*args, "--course", str(course)])
    out = capsys.readouterr().out
    assert "with the released files of" in out and "NameError" not in out, out
    assert "✓ test_square_sum (2/2)" in out, out


def test_validate_runs_inside_the_course_without_being_told(course, capsys, monkeypatch):
    path = builders.write_submission(course / "submitted", "alice", "correct")
    monkeypatch.chdir(course)
    main(["validate", str(path), "--timeout", "20", "--sandbox", "none"])
    assert "7.5 / 10 points; status ok" in capsys.readouterr().out


def test_validate_says_a_checks_module_is_missing(tmp_path, capsys, monkeypatch):
    """Asked of a fresh Python, as the kernel is: a ``checks`` this process has imported
    (another notebook's, loaded by an earlier test or tool) is not one the kernel can import."""
    loaded = types.ModuleType("checks")
    loaded.__spec__ = importlib.machinery.ModuleSpec("checks", None)
    monkeypatch.setitem(sys.modules, "checks", loaded)
    path = tmp_path / "alone" / "squares.ipynb"
    path.parent.mkdir()
    builders.write_submission(tmp_path, "x", "correct", flat=True).rename(path)
    report = tmp_path / "report.json"
    args = ["validate", str(path), "--sandbox", "none", "--course", str(tmp_path / "nowhere")]
    assert main([*args, "--report", str(report)]) == 1
    out = capsys.readouterr().out
    assert "the notebook imports checks, which is not beside it" in out, out
    assert "--course" in out and "NameError" not in out
    assert json.loads(report.read_text())["status"] == "error"


def test_every_help_is_made_of_whole_sentences(capsys):
    """``autogradkit --help`` and each command's: a description, and every help ends its
    sentence (none stops mid-way, as ``... grade, export, and`` did)."""
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    parsers = {"autogradkit": parser, **commands.choices}
    for name, sub in parsers.items():
        assert sub.description and sub.description.rstrip().endswith("."), name
        helps = [a.help for a in sub._actions if not isinstance(a, argparse._HelpAction)]
        helps += [a.help for a in commands._choices_actions] if sub is parser else []
        for text in [sub.description, *helps]:
            assert text and text.rstrip().endswith("."), (name, text)
            assert text.rstrip(". ").split()[-1] not in ("and", "or", "the", "a", "of"), text
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "translate" in capsys.readouterr().out


def test_python_m_autogradkit_says_where_the_commands_went():
    """The student's package holds no instructor tool: ``python -m autogradkit grade`` (the
    old way) fails with the command to run instead, not Python's "cannot be executed"."""
    done = subprocess.run(
        [sys.executable, "-m", "autogradkit", "grade", "submitted"], capture_output=True, text=True
    )
    assert done.returncode == 1 and "run `autogradkit grade submitted`" in done.stderr
