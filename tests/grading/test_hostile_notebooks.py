"""Round 4 of the attack suite: what a notebook file and its kernel's messages hold.

Each attacker hands in the right answers plus one oddity: cell metadata of the wrong type, a
value JSON can write but no JSON reader takes (NaN), a file that Notepad saved, or a kernel
that sends outputs the character budget did not count (metadata, empty outputs, errors and
results after the cut). The grader must grade each as a notebook (its own status, never "the
grader failed"), write a graded copy that is a valid notebook, and keep within its output
budget whatever the kernel sends. One grading run, shared; every test failed before.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from autogradkit.grading.observations import Observation, judge
from autogradkit_instructor.cli import main

from . import builders

pytestmark = pytest.mark.slow(15)  # one grading run of the hostile notebooks

FLAGS = ["--timeout", "20", "-j", "2", "--no-progress"]


def _meta(nb: dict, grade_id: str) -> dict:
    return next(
        c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id
    )


def _extra_cell(nb: dict, code: str, **fields) -> dict:
    cell = {"cell_type": "code", "metadata": {}, "source": code, "outputs": []}
    cell.update(execution_count=None, id=f"extra{len(nb['cells'])}", **fields)
    nb["cells"].insert(3, cell)
    return nb


def _grade_id_not_text(nb):
    _meta(nb, "answer_gradient")["metadata"]["nbgrader"]["grade_id"] = ["answer_gradient"]
    return nb


def _nbgrader_not_a_dict(nb):
    return _extra_cell(nb, "x = 1", metadata={"nbgrader": "grade"})


def _ids_not_text(nb):
    for cell in nb["cells"][:3]:
        cell["id"] = {"id": 1}
    return nb


# outputs a flood sends: 5 times what a cell's budget can hold (100,000 characters, each output
# 100 of them besides its text: 1,000 outputs), every one past it. A grader that kept them
# writes 5,000 outputs where the test allows 1,100. (It was 50,000 empty displays or results
# and 20,000 errors: the same verdicts, for 40 s of CPU more, most of it the kernel's IPython
# making each message)
FLOOD = 5_000
SENDS = {  # kernel outputs the budget (100,000 characters a cell) did not see
    "huge_metadata": (
        "from IPython.display import display\nfor _ in range(8):\n"
        "    display({'text/plain': 'x'}, metadata={'m': 'y' * 8_000_000}, raw=True)"
    ),
    "empty_outputs": (
        "from IPython.display import display\n"
        f"for _ in range({FLOOD}):\n    display({{}}, raw=True)"
    ),
    "errors_after_the_cut": (
        f"print('z' * 200_000)\nip = get_ipython()\nfor _ in range({FLOOD}):\n"
        "    try:\n        raise ValueError('e' * 200)\n"
        "    except ValueError:\n        ip.showtraceback()"
    ),
    "results_after_the_cut": (
        f"import sys\nprint('z' * 200_000)\nfor i in range({FLOOD}):\n    sys.displayhook(i)"
    ),
}
FILES = {  # the notebook file itself: student -> bytes from the correct answers' JSON
    "notepad_bom": lambda text: b"\xef\xbb\xbf" + text.encode(),
    "nan_metadata": lambda text: text.replace(
        '"metadata": {', '"metadata": {"n": NaN, ', 1
    ).encode(),
    "huge_number": lambda text: text.replace(
        '"metadata": {', '"metadata": {"n": 1' + "0" * 5000 + ", ", 1
    ).encode(),
    "deep_metadata": lambda text: text.replace(
        '"metadata": {', '"metadata": {"n": ' + "[" * 100_000 + "]" * 100_000 + ", ", 1
    ).encode(),
}


EDITS = {
    "grade_id_not_text": _grade_id_not_text,
    "nbgrader_not_a_dict": _nbgrader_not_a_dict,
    "ids_not_text": _ids_not_text,
}


def _correct() -> dict:
    return builders.correct(copy.deepcopy(builders.student_version()))


def _write(course: Path, student: str, content: bytes) -> None:
    path = course / "submitted" / student / "hw1" / "squares.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)


@pytest.fixture(scope="module")
def graded(tmp_path_factory, sandbox):
    course = tmp_path_factory.mktemp("hostile-notebooks")
    builders.write_course(course)
    builders.write_submission(course / "submitted", "honest", "correct")
    for student, edit in EDITS.items():
        _write(course, student, json.dumps(edit(_correct())).encode())
    for student, code in SENDS.items():
        _write(course, student, json.dumps(_extra_cell(_correct(), code)).encode())
    for student, change in FILES.items():
        _write(course, student, change(json.dumps(_correct(), indent=1)))
    args = ["grade", str(course / "submitted"), "--assignment", "hw1", "--course", str(course)]
    code = main([*args, *FLAGS])
    book = json.loads((course / "grades" / "hw1" / "gradebook.json").read_text())
    return course, code, {row["student"]: row for row in book["rows"]}


def _strict(text: str):
    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_the_run_finishes_and_the_control_scores_right(graded):
    course, code, rows = graded
    assert code == 0
    assert (rows["honest"]["status"], rows["honest"]["score"]) == ("ok", 10.0)
    assert len(rows) == 1 + len(EDITS) + len(SENDS) + len(FILES), sorted(rows)


@pytest.mark.parametrize("student", sorted(EDITS))
def test_metadata_of_the_wrong_type_is_plain_data_not_a_grader_failure(graded, student):
    row = graded[2][student]
    assert row["status"] == "ok", row
    assert not any("grader failed" in issue for issue in row["issues"]), row
    assert row["tests"]["test_mse"]["points"] == 5.0, row  # the rest is graded
    assert row["tests"]["test_square_sum"]["points"] == 2.0, row


@pytest.mark.parametrize(
    ("want", "got"),
    [
        (3.2, 1e308),
        ([1.0, 2.0], [1e308, 1e308]),
        ([{"float": "nan"}, 2.0], [{"float": "nan"}, 5.0]),
    ],
)
def test_the_judge_says_wrong_of_any_number_it_is_sent(want, got):
    """1e308 from a kernel overflowed the judge's "n times the right value" test (round(inf)),
    and NaN where the solution has NaN too (round(nan)): the row was "the grader failed"."""
    reason = judge(Observation("s", want, "close"), Observation("s", got, "close"))
    assert reason.startswith("the value is not right"), reason


@pytest.mark.parametrize("student", sorted(SENDS))
def test_what_a_kernel_sends_stays_within_the_budget(graded, student):
    course, _, rows = graded
    assert rows[student]["score"] == 10.0, rows[student]
    path = course / "autograded" / student / "hw1" / "squares.ipynb"
    assert path.stat().st_size < 2 * 2**20, path.stat().st_size  # 100,000 characters a cell
    outputs = max(len(cell.get("outputs", [])) for cell in _strict(path.read_text())["cells"])
    assert outputs < 1_100, outputs


def test_a_notebook_saved_with_a_byte_order_mark_is_graded(graded):
    row = graded[2]["notepad_bom"]
    assert (row["status"], row["score"]) == ("ok", 10.0), row


@pytest.mark.parametrize("student", ["huge_number", "deep_metadata"])
def test_json_a_reader_cannot_hold_is_unreadable_not_a_grader_failure(graded, student):
    row = graded[2][student]
    assert (row["status"], row["score"]) == ("unreadable", 0.0), row
    assert "grader failed" not in " ".join(row["issues"]), row


def test_every_graded_copy_is_strict_json(graded):
    course = graded[0]
    copies = sorted((course / "autograded").glob("*/hw1/squares.ipynb"))
    assert len(copies) >= 1 + len(EDITS) + len(SENDS)
    for path in copies:
        _strict(path.read_text(encoding="utf-8"))
