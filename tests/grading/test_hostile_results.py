"""Round 4 of the attack suite: what a kernel leaves in its working folder.

The sandbox may write one host folder, ``autograded/<student>/<assignment>/``, and the grader
then writes the graded notebook there, by name. A kernel that leaves a symlink of that name
pointed at another student's feedback, the gradebook or any file of the instructor's, or a FIFO
(whose writer waits for a reader forever), must cost its own row and nothing else. The run is a
separate process with a time limit, so that a grader that hangs fails the test, not the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from . import builders

FLAGS = ["--timeout", "10", "-j", "2", "--no-progress"]
CANARY = "the instructor's own file"


def _leaves(code: str) -> str:
    """An answer cell that leaves ``code``'s file behind, and answers right."""
    return f"import os\n{code}\ndef square_sum(x):\n    return (x * x).sum()\n"


@pytest.fixture(scope="module")
def graded(tmp_path_factory, sandbox):
    course = tmp_path_factory.mktemp("hostile-results")
    builders.write_course(course)
    canary = course / "canary.txt"
    canary.write_text(CANARY)
    honest_page = course / "feedback" / "honest" / "hw1" / "squares.html"
    attacks = {
        "links_a_file": f"os.symlink({str(canary)!r}, 'squares.ipynb')",
        "links_a_page": f"os.symlink({str(honest_page)!r}, 'squares.ipynb')",
        "leaves_a_fifo": "os.mkfifo('squares.ipynb')",
    }
    builders.write_submission(course / "submitted", "honest", "correct")
    for student, code in attacks.items():
        nb = builders.correct(json.loads(json.dumps(builders.student_version())))
        builders._answer(nb, "answer_square_sum", _leaves(code))
        path = course / "submitted" / student / "hw1" / "squares.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(nb))
    args = ["grade", str(course / "submitted"), "--assignment", "hw1", "--course", str(course)]
    run = [sys.executable, "-m", "autogradkit_instructor", *args, *FLAGS]
    try:
        done = subprocess.run(run, capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        pytest.fail("the grader hung on what a kernel left in its folder")
    book = json.loads((course / "grades" / "hw1" / "gradebook.json").read_text())
    return course, done, {row["student"]: row for row in book["rows"]}


def test_the_run_completes_and_the_honest_student_is_graded(graded):
    course, done, rows = graded
    assert done.returncode == 0, done.stderr
    assert (rows["honest"]["status"], rows["honest"]["score"]) == ("ok", 10.0)
    page = course / "feedback" / "honest" / "hw1" / "squares.html"
    assert "Score: 10 / 10" in page.read_text() and not page.is_symlink()


def test_no_file_outside_the_folder_is_written_through_a_link(graded):
    course = graded[0]
    assert (course / "canary.txt").read_text() == CANARY


@pytest.mark.parametrize("student", ["links_a_file", "links_a_page", "leaves_a_fifo"])
def test_the_graded_copy_replaces_what_the_kernel_left(graded, student):
    course, _, rows = graded
    assert rows[student]["score"] == 10.0, rows[student]
    path = course / "autograded" / student / "hw1" / "squares.ipynb"
    assert path.is_file() and not path.is_symlink()
    json.loads(path.read_text())
    assert os.stat(path).st_nlink == 1


def test_files_a_kernel_leaves_never_reach_the_report(graded):
    course = graded[0]
    from autogradkit_instructor.cli import main

    assert main(["report", "--assignment", "hw1", "--course", str(course)]) == 0
    assert CANARY not in Path(course / "grades" / "hw1" / "report.html").read_text()
