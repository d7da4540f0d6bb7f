"""After grading, ``feedback/`` holds the pages of the gradebook's rows, and nothing else of
the assignment: a page of an earlier run that no row has any more (a student folder named by
an earlier scheme, ``josé/`` before ``josé~<hash>/``; a submission taken back) stayed beside
the new ones with its old score, and handing out ``feedback/<student>/`` sent it on."""

from __future__ import annotations

import json
from pathlib import Path

from autogradkit_instructor.cli import main
from autogradkit_instructor.course import student_folder

from . import builders

FLAGS = ["--timeout", "10", "-j", "2", "--no-progress"]


def _grade(course: Path) -> int:
    args = ["grade", str(course / "submitted"), "--assignment", "hw1", "--course", str(course)]
    return main([*args, *FLAGS])


def _pages(course: Path) -> list[str]:
    found = (course / "feedback").rglob("*.html")
    return sorted(str(p.relative_to(course / "feedback")) for p in found)


def test_a_page_no_row_has_leaves_feedback_and_others_stay(tmp_path, sandbox, capsys):
    builders.write_course(tmp_path)
    for student in ("josé", "ann", "bob"):
        builders.write_submission(tmp_path / "submitted", student, "correct")
    old_scheme = tmp_path / "feedback" / "josé" / "hw1" / "squares.html"
    old_scheme.parent.mkdir(parents=True)
    old_scheme.write_text("<p>an earlier run's page: 0 / 3</p>", encoding="utf-8")
    yours = tmp_path / "feedback" / "ann" / "notes.txt"  # not a page of grade's: it stays
    yours.parent.mkdir(parents=True)
    yours.write_text("handed back on paper\n", encoding="utf-8")
    assert _grade(tmp_path) == 0
    assert "removed feedback/josé/hw1/squares.html" in capsys.readouterr().err
    other = tmp_path / "feedback" / "bob" / "hw2" / "squares.html"  # another assignment's
    other.parent.mkdir(parents=True)
    other.write_text("<p>hw2</p>", encoding="utf-8")
    bob = tmp_path / "submitted" / "bob"
    bob.rename(tmp_path / "bob-taken-back")
    assert _grade(tmp_path) == 0
    assert "removed feedback/bob/hw1/squares.html" in capsys.readouterr().err
    rows = json.loads((tmp_path / "grades" / "hw1" / "gradebook.json").read_text())["rows"]
    assert sorted(row["student"] for row in rows) == ["ann", "josé"]
    assert _pages(tmp_path) == [
        "ann/hw1/squares.html",
        "bob/hw2/squares.html",
        f"{student_folder('josé')}/hw1/squares.html",
    ]
    assert yours.is_file() and not (tmp_path / "feedback" / "josé").exists()
