"""course.py: finding submissions in nbgrader's layout and in a flat folder."""

from __future__ import annotations

from autogradkit_instructor.course import find_submissions, load_assignment
from autogradkit_instructor.files import copy_files

from . import builders


def test_nbgrader_layout_lists_missing_notebooks_too(course):
    builders.write_submission(course / "submitted", "ann", "correct")
    (course / "submitted" / "bob" / "hw1").mkdir(parents=True)
    subs = find_submissions(course / "submitted", load_assignment(course, "hw1"))
    assert [(s.student, s.notebook, s.path is not None) for s in subs] == [
        ("ann", "squares", True),
        ("bob", "squares", False),
    ]


def test_student_version_is_derived_from_the_source(course):
    student = load_assignment(course, "hw1").students["squares"]
    answer = student["cells"][2]
    assert answer["source"].endswith("raise NotImplementedError()")
    assert builders.HIDDEN_MARK not in str(student)


def test_flat_folder_uses_file_names(course):
    flat = course / "flat"
    for name in ("carol", "dave_squares"):
        builders.write_submission(flat, name, "correct", flat=True)
    subs = find_submissions(flat, load_assignment(course, "hw1"))
    assert [(s.student, s.notebook) for s in subs] == [("carol", "squares"), ("dave", "squares")]


def test_helper_files_are_copied_without_notebooks(course, tmp_path):
    copy_files(course / "source" / "hw1", tmp_path / "out")
    copied = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert copied == [".expected.json", "checks.py", "data.txt"]


def test_a_notebooks_text_source_is_never_copied(tmp_path):
    """``hw1.py`` beside ``hw1.ipynb`` is the notebook's Jupytext source, with its solutions:
    neither a release nor a student's grading folder may get it; other modules still go."""
    folder = tmp_path / "source" / "hw1"
    folder.mkdir(parents=True)
    (folder / "hw1.ipynb").write_text("{}")
    (folder / "hw1.py").write_text("answer = 42  # the solution\n")
    (folder / "helpers.py").write_text("def helper(): ...\n")
    copy_files(folder, tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["helpers.py"]
