"""A submission's kernel is an adversary that only produces data (issue 28).

One grading run, in the default sandbox, over a course where honest students sit next to
attackers: one lists what the sandbox holds, others forge the guard's report, print bytes no
file can hold, hand in a notebook or a folder name that is not valid text, or replace NumPy so
that an ``assert``-style test passes. Every test here failed on the grader before issue 28.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from autogradkit_instructor.cli import main
from autogradkit_instructor.runner import REFUSED
from autogradkit_instructor.untrusted import MAX_NOTE_CHARS, MAX_NOTES

from . import builders

FLAGS = ["--timeout", "10", "-j", "2", "--no-progress"]
HONEST = ["honest1", "honest2"]
SOLUTION_MARK = "agk-solution-in-the-translation-5e1b"  # only in source/: the translation
LISTER = """
import json, os
found = sorted(os.path.relpath(os.path.join(top, name))
               for top, _dirs, names in os.walk('.') for name in names)
hidden = any({mark!r} in open(name, errors='replace').read() for name in found
             if name.endswith('.py'))
print('FILES', json.dumps(found), 'HIDDEN', hidden)
"""
FORGERS = {  # the guard's report, answered by the submission itself
    "forges_6000_notes": (
        "import sys\nsys.modules['autogradkit.grading.guard'].reset = "
        "lambda *a, **k: [f'=HYPERLINK(\"x\") forged note {i}' for i in range(6000)]"
    ),
    "forges_a_number": (
        "import sys\nsys.modules['autogradkit.grading.guard'].reset = lambda *a, **k: 5"
    ),
    "prints_a_lone_surrogate": "print('\\ud800 alone')",
    "floods_output": (  # each message larger than the grader's sockets take
        "from IPython.display import display\nfor _ in range(3):\n"
        "    display({'text/plain': 'x' * 40_000_000}, raw=True)"
    ),
}
FAKE_NUMPY = (  # every comparison passes, in the name the test cell uses and in sys.modules
    "import sys, types\n"
    "fake = types.ModuleType('numpy')\n"
    "fake.isclose = lambda *args, **kwargs: True\n"
    "fake.allclose = lambda *args, **kwargs: True\n"
    "np = fake\n"
    "sys.modules['numpy'] = fake\n"
)


def _submit(course: Path, student: str, nb: dict, folder_name: bytes | None = None) -> Path:
    name = os.fsdecode(folder_name) if folder_name else student
    path = course / "submitted" / name / builders.ASSIGNMENT / f"{builders.NOTEBOOK}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb))
    return path


def _answered(extra: str, answers=builders.correct) -> dict:
    """The released notebook with ``answers``, and ``extra`` run at the end of the first
    answer cell."""
    nb = answers(json.loads(json.dumps(builders.student_version())))
    for cell in nb["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "answer_square_sum":
            cell["source"] += "\n" + extra
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory, sandbox):
    """Grade the course once; yield (course, exit code)."""
    course = tmp_path_factory.mktemp("untrusted")
    builders.write_course(course)
    source = course / "source" / builders.ASSIGNMENT
    (source / f"{builders.NOTEBOOK}.zh-CN.md").write_text(f"# a translation\n{SOLUTION_MARK}\n")
    (source / "checks.zh-CN.po").write_text(f'msgid "x"\nmsgstr "{SOLUTION_MARK}"\n')
    for student in HONEST:
        builders.write_submission(course / "submitted", student, "correct")
    lister = _submit(course, "lister", _answered(LISTER.format(mark=builders.HIDDEN_MARK)))
    (lister.parent / "notes.txt").write_text("the student's own file\n")
    for student, code in FORGERS.items():
        _submit(course, student, _answered(code))
    surrogate = _answered("")
    surrogate["cells"][0]["source"] = "# Squares \ud800 in Markdown"
    _submit(course, "markdown_surrogate", surrogate)
    _submit(course, "", _answered(""), folder_name=b"not-utf8-\xff")
    _submit(course, "fake_numpy", _answered(FAKE_NUMPY, answers=builders.wrong))
    args = ["grade", str(course / "submitted"), "--assignment", "hw1", "--course", str(course)]
    yield course, main([*args, *FLAGS])


def _rows(course: Path) -> dict[str, dict]:
    book = json.loads((course / "grades" / "hw1" / "gradebook.json").read_text())
    return {row["student"]: row for row in book["rows"]}


def _said(course: Path, student: str) -> str:
    nb = json.loads((course / "autograded" / student / "hw1" / "squares.ipynb").read_text())
    cell = next(
        c
        for c in nb["cells"]
        if c["metadata"].get("nbgrader", {}).get("grade_id") == "answer_square_sum"
    )
    return "".join(o.get("text", "") for o in cell["outputs"] if o["output_type"] == "stream")


def test_the_sandbox_holds_the_release_and_the_submission_and_nothing_else(graded):
    course, _ = graded
    said = _said(course, "lister")
    listed = json.loads(said.split("FILES", 1)[1].split("HIDDEN")[0])
    released = course / "release" / builders.ASSIGNMENT
    allowed = {p.name for p in released.iterdir() if not p.name.endswith(".ipynb")}
    allowed.discard(".expected.json")  # practice answers: never needed when grading
    made_by_ipython = {name for name in listed if name.startswith(".ipython/")}  # its profile
    assert set(listed) - made_by_ipython == allowed | {"notes.txt"}, listed
    assert "HIDDEN False" in said, said  # the hidden checks are not there before their cell
    assert _rows(course)["lister"]["score"] == 10.0  # ...and yet they ran in it


def test_no_source_file_enters_the_sandbox(graded):
    course, _ = graded
    assert SOLUTION_MARK not in _said(course, "lister")
    for path in (course / "autograded" / "lister").rglob("*"):
        assert path.is_dir() or SOLUTION_MARK.encode() not in path.read_bytes(), path


def test_a_forged_guard_report_is_bounded_and_never_copied(graded):
    course, code = graded
    row = _rows(course)["forges_6000_notes"]
    assert (row["status"], row["score"]) == ("ok", 5.0), row  # the assert cell's 5 withheld
    assert 1 <= len(row["review"]) <= MAX_NOTES, len(row["review"])
    assert all(len(note) <= MAX_NOTE_CHARS for note in row["review"])
    book = (course / "grades" / "hw1" / "gradebook.json").read_text()
    assert "forged note" not in book and "HYPERLINK" not in book
    assert len(book) < 40_000, len(book)


def test_a_malformed_guard_report_is_a_review_note_not_a_crash(graded):
    row = _rows(graded[0])["forges_a_number"]
    assert (row["status"], row["score"]) == ("ok", 5.0), row  # the assert cell's 5 withheld
    assert row["tests"]["test_mse"]["points"] == 0.0, row  # its verdict came from the kernel
    assert row["review"], row


def test_bad_text_from_a_kernel_a_notebook_or_a_folder_name_costs_only_its_row(graded):
    course, code = graded
    rows = _rows(course)
    assert code == 0
    for student in HONEST:
        assert (rows[student]["status"], rows[student]["score"]) == ("ok", 10.0)
    assert rows["prints_a_lone_surrogate"]["score"] == 10.0, rows["prints_a_lone_surrogate"]
    assert "markdown_surrogate" in rows
    odd = [name for name in rows if name.startswith("not-utf8-")]
    assert len(odd) == 1 and odd[0].isprintable(), odd
    assert (course / "grades" / "hw1" / "gradebook.csv").read_text(encoding="utf-8")


def test_a_fake_numpy_never_passes_an_assert_style_test_silently(graded):
    row = _rows(graded[0])["fake_numpy"]
    assert row["tests"]["test_mse"]["points"] == 0.0 or row["review"], row
    assert row["review"], row  # the replacement is flagged for a person
    assert row["tests"]["test_mse"]["points"] == 0.0, row  # and undone before the test


def test_output_larger_than_the_sockets_take_is_dropped_as_it_arrives(graded):
    course, _ = graded
    row = _rows(course)["floods_output"]
    assert (row["status"], row["score"]) == ("ok", 10.0), row  # the later cells still report
    assert REFUSED.format(limit=16).strip() in _said(course, "floods_output")
