"""Round 4 of the attack suite: who a submission says it is, and what its files point at.

A student's name is the name of a folder or a file, and a student (or an archive the
instructor unpacks) chooses it. Two names the grader shows alike, a name that is a path
(``..``), a folder that is a symlink to another student's work or to the instructor's source:
each must become that submission's own status, never another student's grade, feedback or
files. One grading run per layout (nbgrader's folders, a flat folder), shared by the tests;
every test here failed on the grader before this suite.
"""

from __future__ import annotations

import csv
import json
import os
import re
from pathlib import Path

import pytest

from autogradkit_instructor.cli import main
from autogradkit_instructor.course import student_folder

from . import builders

FLAGS = ["--timeout", "10", "-j", "2", "--no-progress"]
BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")  # what reorders text


def _grade(course: Path) -> int:
    args = ["grade", str(course / "submitted"), "--assignment", "hw1", "--course", str(course)]
    return main([*args, *FLAGS])


def _rows(course: Path) -> list[dict]:
    return json.loads((course / "grades" / "hw1" / "gradebook.json").read_text())["rows"]


NESTED = {  # folder name -> kind of answers; pairs that the grader used to show alike
    "ann": "correct",
    "ann\n": "wrong",
    os.fsdecode(b"bob\xff"): "correct",
    "bob\\xff": "wrong",
    "\u202eann": "wrong",  # right-to-left override: shows as "nna"
    os.fsdecode(b"long\xff" * 40): "correct",  # 200 bytes; escaped, over a name's 255
}


@pytest.fixture(scope="module")
def nested(tmp_path_factory, sandbox):
    course = tmp_path_factory.mktemp("names-nested")
    builders.write_course(course)
    submitted = course / "submitted"
    for student, kind in NESTED.items():
        builders.write_submission(submitted, student, kind)
    builders.write_submission(submitted, "honest", "correct")
    (submitted / "linker").mkdir()
    (submitted / "linker" / "hw1").symlink_to(Path("..") / "honest" / "hw1")
    (submitted / "sourcer").mkdir()  # an unpacked archive's link to the instructor's notebooks
    (submitted / "sourcer" / "hw1").symlink_to(Path("..") / ".." / "source" / "hw1")
    (submitted / "mirror").symlink_to("honest")  # the student's folder itself
    code = _grade(course)
    return course, code


def test_names_shown_alike_are_never_one_student(nested):
    course, code = nested
    rows = _rows(course)
    assert code == 0
    students = [r["student"] for r in rows]
    assert len(students) == len(set(students)), students  # one row per student, each apart
    by_name = {r["student"]: r for r in rows}
    assert (by_name["ann"]["status"], by_name["ann"]["score"]) == ("ok", 10.0)
    assert by_name["honest"]["score"] == 10.0
    pages = {p.parent.parent.name for p in (course / "feedback").glob("*/hw1/squares.html")}
    assert len(pages) == len(rows), pages  # a page of one's own, never overwritten by another
    ann = (course / "feedback" / "ann" / "hw1" / "squares.html").read_text()
    assert "Score: 10 / 10" in ann


def test_a_name_that_grows_when_escaped_is_still_graded(nested):
    course = nested[0]
    row = next(r for r in _rows(course) if r["student"].startswith("long"))
    assert (row["status"], row["score"]) == ("ok", 10.0), row
    assert len(row["student"].encode()) <= 255 and row["student"].startswith("long\\xfflong")
    page = course / "feedback" / student_folder(row["student"]) / "hw1" / "squares.html"
    assert page.is_file()


def test_non_utf8_and_backslash_names_stay_two_students(nested):
    rows = {r["student"]: r for r in _rows(nested[0])}
    bobs = sorted(name for name in rows if name.startswith("bob"))
    assert len(bobs) == 2, bobs
    assert sorted(rows[name]["score"] for name in bobs) == [0.0, 10.0]


def test_no_name_reorders_the_text_around_it(nested):
    course = nested[0]
    export = ["export", "--assignment", "hw1", "--course", str(course), "--format", "canvas"]
    assert main(export) == 0
    assert main(["report", "--assignment", "hw1", "--course", str(course)]) == 0
    names = ("gradebook.csv", "gradebook.json", "report.html", "hw1_canvas.csv")
    for path in (course / "grades" / "hw1" / name for name in names):
        assert not BIDI.search(path.read_text(encoding="utf-8")), path
    assert any("\\u202eann" in r["student"] for r in _rows(course))  # shown, not obeyed


@pytest.mark.parametrize("student", ["linker", "sourcer", "mirror"])
def test_a_symlinked_submission_folder_is_refused_not_followed(nested, student):
    course = nested[0]
    row = next(r for r in _rows(course) if r["student"] == student)
    assert (row["status"], row["score"]) == ("unreadable", 0.0), row
    assert "symlink" in " ".join(row["issues"]), row
    assert not (course / "autograded" / student / "hw1" / "squares.ipynb").exists()


FLAT = {  # file name -> kind
    "ann.ipynb": "correct",
    "ann_squares.ipynb": "wrong",  # the same student and notebook, named the other way
    "...ipynb": "correct",  # student "..": its work folder would climb out of autograded/
    "..ipynb": "correct",  # student ".": autograded/./hw1 is autograded/hw1
    "hw1.ipynb": "wrong",  # ... which is this student's
    "zoe.ipynb": "correct",
}


@pytest.fixture(scope="module")
def flat(tmp_path_factory, sandbox):
    course = tmp_path_factory.mktemp("names-flat")
    builders.write_course(course)
    for name, kind in FLAT.items():
        path = builders.write_submission(course / "submitted", "x", kind, flat=True)
        path.rename(course / "submitted" / name)
    (course / "hw1").mkdir()
    (course / "hw1" / "notes.txt").write_text("the instructor's own file")
    return course, _grade(course)


def test_two_submissions_of_one_student_are_both_held_for_a_person(flat):
    course, code = flat
    rows = [r for r in _rows(course) if r["student"] == "ann"]
    assert code == 0
    assert [r["status"] for r in rows] == ["error", "error"], rows
    assert [r["score"] for r in rows] == [0.0, 0.0]
    for row in rows:
        note = " ".join(row["issues"])
        assert "ann.ipynb" in note and "ann_squares.ipynb" in note, row
    pages = [p for p in (course / "feedback").glob("ann*/hw1/squares.html")]
    assert len(pages) == 2, pages  # one page each: neither overwrites the other


def test_dot_names_stay_inside_the_course_folders(flat):
    course = flat[0]
    assert (course / "hw1" / "notes.txt").read_text() == "the instructor's own file"
    assert sorted(os.listdir(course / "hw1")) == ["notes.txt"]
    rows = {r["student"]: r for r in _rows(course)}
    assert len(rows) == 5, sorted(rows)  # ann (twice, one name), "..", ".", hw1, zoe
    assert rows["zoe"]["score"] == 10.0 and rows["hw1"]["score"] == 0.0
    for dots in ("\\x2e", "\\x2e\\x2e"):  # "." and "..", shown as names of their own
        assert rows[dots]["score"] == 10.0, sorted(rows)
        assert (course / "feedback" / student_folder(dots) / "hw1" / "squares.html").is_file()
    graded = course / "autograded" / "hw1" / "hw1" / "squares.ipynb"
    assert "x.sum() ** 2" in graded.read_text()  # hw1's own wrong answer, not "."'s


def test_export_has_one_line_per_student(flat):
    course = flat[0]
    assert main(["export", "--assignment", "hw1", "--course", str(course)]) == 0
    for name, count in (("hw1_csv.csv", 5), ("gradebook.csv", 6)):  # students, files
        lines = list(csv.reader((course / "grades" / "hw1" / name).open(encoding="utf-8")))
        assert len(lines) == 1 + count, lines
