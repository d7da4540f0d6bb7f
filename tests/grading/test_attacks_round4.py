"""Round 5 of the attack suite: what stays true across runs, names that are one identity,
notebooks that cost memory, links, exports read in another locale, and hostile kernels.

One grading run (default bubblewrap sandbox) of controls and hostile submissions, shared by
the tests, then a second run after one student changed a helper file. Each attack was written
here first and seen succeeding on the grader before it was closed (the docstrings say what
it did); the kernel attacks at the end held already and stay as regression tests.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tracemalloc
import unicodedata
from pathlib import Path

import pytest

from autogradkit_instructor.cli import main
from autogradkit_instructor.files import copy_files
from autogradkit_instructor.notebooks import UnreadableNotebook, read_notebook

from . import builders

pytestmark = pytest.mark.slow(16)  # three grading runs (one class twice, two notebooks twice)
FLAGS = ["--timeout", "10", "-j", "2", "--no-progress"]
NFC, NFD = unicodedata.normalize("NFC", "josé"), unicodedata.normalize("NFD", "josé")
SEPARATED = "x;=1+1"  # one cell for a comma reader, "=1+1" for a semicolon reader (Excel, de)
HELPER = "from mine import square_sum  # my own module, handed in beside the notebook"
RIGHT = "def square_sum(x):\n    return (x * x).sum()\n"
WRONG = "def square_sum(x):\n    return x.sum() ** 2\n"
SHOWS_FULL_POINTS = (  # a wrong mse that shows a result of its own while the test cell runs
    "import sys\ndef mse(pred, target):\n    sys.displayhook(5.0)\n"
    "    return ((pred - target) ** 2).sum()\n"
)
PATCHES_IN_THE_LAST_CELL = (
    "import numpy as np\ndef mse(pred, target):\n    np.isclose = lambda *a, **k: True\n"
    "    return ((pred - target) ** 2).sum()\n"
)
KERNELS = {  # answer code run before the answers; every answer then wrong: 0 points is right
    "closes_stdio": "import os\nos.close(1)\nos.close(2)",
    "kills_parent": "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)",
    "lingers": (  # a thread that outlives its cell and speaks during the test cells
        "import threading, time\nfrom IPython.display import display\n"
        "def _speak():\n    while True:\n        print('✓ square_sum(x)')\n"
        "        display({'application/vnd.autogradkit.observations+json': {'check': "
        "'square_sum_values', 'title': 't', 'observations': [{'name': 'square_sum(x)', "
        "'value': 1.0}]}}, raw=True)\n        time.sleep(0.05)\n"
        "threading.Thread(target=_speak, daemon=True).start()"
    ),
}


def _grade(course: Path) -> int:
    args = ["grade", str(course / "submitted"), "--assignment", "hw1", "--course", str(course)]
    return main([*args, *FLAGS])


def _rows(course: Path) -> dict[str, dict]:
    book = json.loads((course / "grades" / "hw1" / "gradebook.json").read_text())
    return {row["student"]: row for row in book["rows"]}


def _write(course: Path, student: str, nb: dict) -> Path:
    path = course / "submitted" / student / "hw1" / "squares.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb))
    return path


def _released() -> dict:
    return json.loads(json.dumps(builders.student_version()))


def _bomb(values: int) -> str:
    """A notebook whose one cell's metadata holds ``values`` empty lists: 3 bytes each in the
    file, about 64 bytes each once parsed."""
    nb = builders.correct(_released())
    nb["cells"][0]["metadata"]["x"] = "@@"
    return json.dumps(nb).replace('"@@"', "[" + ",".join(["[]"] * values) + "]")


@pytest.fixture(scope="module")
def graded(tmp_path_factory, sandbox):
    course = tmp_path_factory.mktemp("round5")
    source = builders.write_course(course)
    submitted = course / "submitted"
    for student, kind in {"honest": "correct", "wrong": "wrong", NFC: "correct"}.items():
        builders.write_submission(submitted, student, kind)
    for student, kind in {"zoe": "correct", "Zoe": "wrong", NFD: "wrong"}.items():
        builders.write_submission(submitted, student, kind)
    builders.write_submission(submitted, SEPARATED, "correct")
    helper = builders.correct(_released())
    builders._answer(helper, "answer_square_sum", HELPER)
    (_write(course, "helper", helper).parent / "mine.py").write_text(RIGHT)
    bomb = submitted / "bomb" / "hw1" / "squares.ipynb"
    bomb.parent.mkdir(parents=True)
    bomb.write_text(_bomb(2_500_000))
    (submitted / "copycat" / "hw1").mkdir(parents=True)  # an archive's hard link, unpacked
    os.link(source, submitted / "copycat" / "hw1" / "squares.ipynb")
    result = builders.wrong(_released())  # an assert cell's points are the value it shows
    builders._answer(result, "answer_mse", SHOWS_FULL_POINTS)
    _write(course, "shows_points", result)
    late = builders.wrong(_released())  # patches numpy while the last test cell runs
    builders._answer(late, "answer_mse", PATCHES_IN_THE_LAST_CELL)
    _write(course, "patches_late", late)
    farm = builders.write_submission(submitted, "linkfarm", "correct").parent
    for number in range(3000):  # each one refused, each refusal one line of the page
        (farm / f"link{number}").symlink_to("/etc/passwd")
    for student, code in KERNELS.items():
        nb = builders.wrong(_released())
        builders._answer(nb, "answer_square_sum", f"{code}\n{WRONG}")
        _write(course, student, nb)
    first = (_grade(course), _rows(course))
    (submitted / "helper" / "hw1" / "mine.py").write_text(WRONG)  # changed after grading
    return course, first, (_grade(course), _rows(course))


def test_the_controls_score_right_in_both_runs(graded):
    _course, (code, rows), (again, later) = graded
    assert code == 0 and again == 0
    for book in (rows, later):
        assert (book["honest"]["status"], book["honest"]["score"]) == ("ok", 10.0)
        assert (book["wrong"]["status"], book["wrong"]["score"]) == ("ok", 0.0)


def test_a_changed_helper_file_is_graded_again(graded):
    """Was: the kept row's digest covered the notebook file only, so a second run kept the
    first run's 10/10 for a helper module that was now wrong."""
    _course, (_code, rows), (_again, later) = graded
    assert rows["helper"]["tests"]["test_square_sum"]["points"] == 2.0
    assert later["helper"]["tests"]["test_square_sum"]["points"] == 0.0, later["helper"]
    assert later["honest"]["digest"] == rows["honest"]["digest"]  # the others were kept


@pytest.mark.parametrize("pair", [("zoe", "Zoe"), (NFC, NFD)])
def test_names_that_are_one_identity_are_held_for_a_person(graded, pair):
    """Was: ``zoe`` and ``Zoe`` (one login for an LMS, one folder on macOS or Windows), and
    ``josé`` written composed and decomposed (shown alike), were two ordinary rows."""
    _course, (_code, rows), _ = graded
    for student in pair:
        row = rows[student]
        assert (row["status"], row["score"]) == ("error", 0.0), row
        assert "one student" in " ".join(row["issues"]), row


def test_a_notebook_of_many_tiny_values_is_refused_before_it_costs_memory(graded, tmp_path):
    """Was: read whole, about 20 times its size in the grader's memory (60 MiB of ``[]``:
    3.1 GB and 20 s for one submission, read by each of ``2 * jobs`` threads at once)."""
    _course, (_code, rows), _ = graded
    assert rows["bomb"]["status"] == "unreadable", rows["bomb"]
    assert "values" in " ".join(rows["bomb"]["issues"])
    path = tmp_path / "bomb.ipynb"
    path.write_text(_bomb(2_500_000))
    tracemalloc.start()
    with pytest.raises(UnreadableNotebook):
        read_notebook(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 4 * path.stat().st_size, peak


def test_a_notebook_of_large_outputs_is_still_read(tmp_path):
    path = tmp_path / "pictures.ipynb"
    nb = builders.correct(_released())
    picture = {"output_type": "display_data", "metadata": {}, "data": {"image/png": "A" * 2**20}}
    nb["cells"][1]["outputs"] = [picture] * 30  # 30 MiB of plots, few JSON values
    path.write_text(json.dumps(nb))
    assert len(read_notebook(path)["cells"]) == len(nb["cells"])


def test_a_hard_link_to_the_instructors_notebook_earns_nothing(graded):
    """Was: a hard link (which ``tar`` or ``cp -l`` makes) to ``source/hw1/squares.ipynb``
    was an ordinary file: 10/10 with the solutions, status ok."""
    _course, (_code, rows), _ = graded
    row = rows["copycat"]
    assert (row["status"], row["score"]) == ("unreadable", 0.0), row
    assert "hard link" in " ".join(row["issues"]), row


@pytest.mark.parametrize("fmt", ["canvas", "moodle", "csv"])
@pytest.mark.parametrize("delimiter", [",", ";", "\t"])
def test_no_export_cell_is_a_formula_whatever_the_readers_separator(graded, fmt, delimiter):
    """Was: ``x;=1+1`` was written unquoted, so a spreadsheet that splits on ``;`` (Excel in
    most of Europe) read a cell ``=1+1``."""
    course = graded[0]
    assert main(["export", "--assignment", "hw1", "--course", str(course), "--format", fmt]) == 0
    files = [
        course / "grades" / "hw1" / f"hw1_{fmt}.csv",
        course / "grades" / "hw1" / "gradebook.csv",
    ]
    for path in files:
        text = path.read_text(encoding="utf-8")
        shown = [c for row in csv.reader(io.StringIO(text)) for c in row if c.startswith("x;")]
        assert shown and set(shown) == {"x;'=1+1"}, shown  # one cell, inert for ; readers
        cells = [c for row in csv.reader(io.StringIO(text), delimiter=delimiter) for c in row]
        formulas = [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
        assert not formulas, (path.name, formulas)


@pytest.mark.parametrize("student", sorted(KERNELS))
def test_a_hostile_kernel_costs_only_its_own_points(graded, student):
    _course, (_code, rows), _ = graded
    assert rows[student]["score"] == 0.0, rows[student]
    assert rows["honest"]["score"] == 10.0


def test_a_notebook_too_deep_for_the_grader_is_unreadable_not_a_grader_failure(tmp_path):
    """Was: 500 nested lists parsed, then the grader's own walk raised RecursionError: the
    row said "the grader failed" instead of why the file cannot be graded."""
    nb = builders.correct(_released())
    nb["cells"][0]["metadata"]["x"] = "@@"
    path = tmp_path / "deep.ipynb"
    path.write_text(json.dumps(nb).replace('"@@"', "[" * 500 + "]" * 500))
    with pytest.raises(UnreadableNotebook, match="RecursionError"):
        read_notebook(path)


@pytest.fixture(scope="module")
def two_notebooks(tmp_path_factory, sandbox):
    """An assignment of two notebooks (``squares`` and its copy ``cubes``), graded twice:
    the second time after ``ann`` changed her ``cubes`` and ``bob`` handed in a broken one."""
    course = tmp_path_factory.mktemp("two-notebooks")
    builders.write_course(course)
    for root in ("source", "release"):
        folder = course / root / "hw1"
        (folder / "cubes.ipynb").write_bytes((folder / "squares.ipynb").read_bytes())
    for student in ("ann", "bob", "cat"):
        path = builders.write_submission(course / "submitted", student, "correct")
        path.with_name("cubes.ipynb").write_bytes(path.read_bytes())
    runs = [(_grade(course), _copies(course))]
    ann = course / "submitted" / "ann" / "hw1" / "cubes.ipynb"
    ann.write_text(ann.read_text().replace("Three small exercises.", "Three exercises."))
    (course / "submitted" / "bob" / "hw1" / "cubes.ipynb").write_text("{ not json")
    runs.append((_grade(course), _copies(course)))
    return course, runs


def _copies(course: Path) -> dict[str, tuple]:
    """Each row's status and score, and whether its graded copy is there."""
    found = {}
    for row in _rows_of(course):
        graded = course / "autograded" / row["student"] / "hw1" / f"{row['notebook']}.ipynb"
        found[f"{row['student']}/{row['notebook']}"] = (
            row["status"],
            row["score"],
            graded.is_file(),
        )
    return found


def _rows_of(course: Path) -> list[dict]:
    return json.loads((course / "grades" / "hw1" / "gradebook.json").read_text())["rows"]


def test_two_notebooks_of_one_student_never_cost_each_other(two_notebooks):
    """Was: both notebooks of a student ran in one working folder, which each emptied and
    made again as it started: a run that regraded both gave one of them "the grader failed:
    FileExistsError" and 0, and a regrade of one deleted the other's graded copy."""
    _course, [(code, first), (again, second)] = two_notebooks
    assert code == 0 and again == 0
    assert set(first.values()) == {("ok", 10.0, True)}, first
    expected = {**first, "bob/cubes": ("unreadable", 0.0, False)}
    assert second == expected, second  # bob's old graded copy went with his old row


def test_what_a_folder_of_many_refused_files_costs_is_bounded(graded):
    """Was: each of 3,000 symlinks was one line of the feedback page (183 KB), however many."""
    course, (_code, rows), _ = graded
    row = rows["linkfarm"]
    assert (row["status"], row["score"]) == ("bad_files", 10.0), row
    page = course / "feedback" / "linkfarm" / "hw1" / "squares.html"
    assert page.stat().st_size < 20_000, page.stat().st_size
    assert "more notes" in page.read_text()


def test_every_file_costs_the_disk_budget_a_block(tmp_path):
    """Was: empty files cost nothing, so a folder of a million of them was copied whole (twice:
    into autograded/ and into the sandbox), whatever the disk limit."""
    own = tmp_path / "own"
    own.mkdir()
    for number in range(1000):
        (own / f"empty{number}").touch()
    refused = copy_files(own, tmp_path / "copy", 64 * 4096, own=True)
    assert len(list((tmp_path / "copy").iterdir())) <= 64
    assert refused and len(refused) <= 21, len(refused)


def test_a_result_shown_by_student_code_is_not_the_test_cells_points(graded):
    """Was: an nbgrader cell's partial credit was its first ``execute_result``, so a wrong
    ``mse`` that called ``sys.displayhook(5.0)`` while the test cell ran earned 5 of 5."""
    _course, (_code, rows), _ = graded
    row = rows["shows_points"]
    assert row["tests"]["test_mse"]["points"] == 0.0, row
    assert any("test_mse" in note and "result" in note for note in row["review"]), row


@pytest.mark.parametrize(
    "field, value",
    [
        ("source", {"a": 1}),
        ("source", [1, 2]),
        ("source", 5),
        ("source", ["x", None]),
        ("metadata", []),
    ],
)
def test_a_notebook_field_of_another_type_is_unreadable_not_a_grader_failure(
    tmp_path, field, value
):
    """Was: read, then a TypeError or AttributeError in a later step: the row said "the
    grader failed" (status error: "your instructor will look at it")."""
    nb = builders.correct(_released())
    if field == "source":
        nb["cells"][2]["source"] = value
    else:
        nb["metadata"] = value
    path = tmp_path / "odd.ipynb"
    path.write_text(json.dumps(nb))
    with pytest.raises(UnreadableNotebook, match="not"):
        read_notebook(path)


def test_a_patch_made_during_the_last_test_cell_is_listed_for_review(graded):
    """Was: the guard looked only before each test cell, so numpy.isclose replaced while the
    last one ran (by the answer it calls) passed its asserts silently: 5 of 5, no review."""
    _course, (_code, rows), _ = graded
    row = rows["patches_late"]
    assert any("numpy.isclose was replaced" in note for note in row["review"]), row
