"""Course notebooks built in code for the grading tests and benchmark.

``source_notebook()`` is a three-exercise instructor notebook (nbgrader schema v3 metadata,
solutions and hidden tests). Two of its test cells call the course's checks (``CHECKS``,
written beside it as ``checks.py``, with a hidden check), which are judged from their records;
the third is an nbgrader ``assert``-style cell with partial credit. ``SUBMISSIONS`` maps each
kind of student behaviour to a function that turns the released notebook into such a
submission.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ASSIGNMENT, NOTEBOOK = "hw1", "squares"
POINTS = {"test_square_sum": 2.0, "test_gradient": 3.0, "test_mse": 5.0}
HIDDEN_MARK = "square_sum hidden"  # text that appears only in the hidden tests
CHECKS = f'''"""The checks of the squares notebook."""

import autogradkit as agk
from autogradkit.grading.checks import Checks

check = Checks(__file__)


@check.exercise("square_sum")
def square_sum_values(obs, square_sum):
    """square_sum on a random vector"""
    x = agk.tensor(obs.rng.normal(size=3))
    obs.close("square_sum(x)", obs.call(square_sum, x), hint="square each entry, then add")


@check.exercise("gradient_of_square_sum")
def gradient(obs, gradient_of_square_sum):
    """the gradient of the square sum"""
    values = obs.rng.normal(size=4).tolist()
    obs.close("gradient", obs.call(gradient_of_square_sum, values), hint="d(x*x)/dx = 2x")


### BEGIN HIDDEN TESTS
@check.exercise("square_sum", hidden=True)
def square_sum_of_negatives(obs, square_sum):
    """{HIDDEN_MARK}"""
    x = agk.tensor(-abs(obs.rng.normal(size=5)))
    obs.close("square_sum of negatives", obs.call(square_sum, x))
### END HIDDEN TESTS
'''


def _meta(grade_id: str, *, grade=False, solution=False, locked=False, points=None) -> dict:
    meta = {
        "schema_version": 3,
        "grade": grade,
        "solution": solution,
        "locked": locked,
        "grade_id": grade_id,
    }
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def _code(source: str, **meta) -> nbformat.NotebookNode:
    cell = new_code_cell(source, metadata=_meta(**meta) if meta else {})
    cell.id = meta.get("grade_id", f"c{abs(hash(source)) % 10**8}")  # stable ids
    return cell


ANSWERS = {
    "answer_square_sum": "def square_sum(x):\n    return (x * x).sum()",
    "answer_gradient": (
        "def gradient_of_square_sum(values):\n"
        "    x = agk.tensor(values, requires_grad=True)\n"
        "    (x * x).sum().backward()\n"
        "    return x.grad"
    ),
    "answer_mse": "def mse(pred, target):\n    return ((pred - target) ** 2).mean()",
}
WRONG = {
    "answer_square_sum": "def square_sum(x):\n    return x.sum() ** 2",
    "answer_gradient": "def gradient_of_square_sum(values):\n    return agk.tensor(values)",
    "answer_mse": "def mse(pred, target):\n    return ((pred - target) ** 2).sum()",
}


def _solution(grade_id: str) -> str:
    head, body = ANSWERS[grade_id].split("\n", 1)
    return f"{head}\n    ### BEGIN SOLUTION\n{body}\n    ### END SOLUTION"


TESTS = {
    "test_square_sum": (
        "checks.square_sum_values()\n"
        "### BEGIN HIDDEN TESTS\n"
        "checks.square_sum_of_negatives()\n"
        "### END HIDDEN TESTS"
    ),
    "test_gradient": "checks.gradient()",
    "test_mse": (  # partial credit: the cell's value is the points earned
        "points = 0.0\n"
        "points += 2.5 * bool(np.isclose(float(mse(agk.tensor([1.0, 2.0]), "
        "agk.tensor([1.0, 4.0]))), 2.0))\n"
        "### BEGIN HIDDEN TESTS\n"
        "points += 2.5 * bool(np.isclose(float(mse(agk.tensor([0.0, 0.0]), "
        "agk.tensor([3.0, 4.0]))), 12.5))\n"
        "### END HIDDEN TESTS\n"
        "points"
    ),
}


def source_notebook() -> nbformat.NotebookNode:
    """The instructor's version: setup, three answers with solutions, three test cells."""
    nb = new_notebook(
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        }
    )
    intro = new_markdown_cell(
        "# Squares\nThree small exercises.", metadata=_meta("intro", locked=True)
    )
    intro.id = "intro"
    nb.cells = [
        intro,
        _code(
            "import numpy as np\nimport autogradkit as agk\nimport checks",
            grade_id="setup",
            locked=True,
        ),
    ]
    for answer, test in zip(ANSWERS, TESTS, strict=True):
        nb.cells += [
            _code(_solution(answer), grade_id=answer, solution=True),
            _code(TESTS[test], grade_id=test, grade=True, locked=True, points=POINTS[test]),
        ]
    return nb


def write_course(root: Path) -> Path:
    """``root/source/hw1/squares.ipynb``, its ``checks.py`` with the practice answers that
    ``build`` would record, and a helper file; and their release in ``root/release/hw1/``
    (the student version, not executed); returns the notebook path."""
    from autogradkit_instructor.release import release_files

    folder = root / "source" / ASSIGNMENT
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "data.txt").write_text("helper file copied with the assignment\n")
    (folder / "checks.py").write_text(CHECKS)
    path = folder / f"{NOTEBOOK}.ipynb"
    nbformat.write(source_notebook(), path)
    write_expected(folder)
    released = root / "release" / ASSIGNMENT
    release_files(folder, released)
    (released / path.name).write_text(json.dumps(student_version(), indent=1))
    return path


def load_checks(folder: Path):
    """The ``checks.py`` of ``folder`` as a fresh module (each folder has its own)."""
    import importlib.util

    name = f"checks_{abs(hash(str(folder)))}"
    spec = importlib.util.spec_from_file_location(name, Path(folder) / "checks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def solution_answers() -> dict:
    """The instructor's answers as Python objects: ``{"square_sum": <function>, ...}``."""
    import numpy as np

    import autogradkit as agk

    namespace = {"agk": agk, "np": np}
    for code in ANSWERS.values():
        exec(code, namespace)
    return namespace


def write_expected(folder: Path) -> None:
    """What ``autogradkit build`` records: each check run on the solution, practice seeds."""
    from autogradkit.grading.checks import Check, expected_text

    checks, answers = load_checks(folder), solution_answers()
    entries, hidden = {}, set()
    for check in (v for v in vars(checks).values() if isinstance(v, Check)):
        record = check.observe(**{name: answers[name] for name in check.answers})
        entries[check.name] = {o.name: o.value for o in record.observations}
        if check.hidden:
            hidden.add(check.name)
    (Path(folder) / ".expected.json").write_text(expected_text(entries, hidden))


def student_version() -> dict:
    """The released notebook, built without executing it (as the grader derives it)."""
    from autogradkit_instructor.pipeline import student_version as make

    return make()(json.loads(nbformat.writes(source_notebook())), None)


def _answer(nb: dict, grade_id: str, source: str) -> dict:
    for cell in nb["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == grade_id:
            cell["source"] = source
    return nb


def _answers(nb: dict, table: dict) -> dict:
    for grade_id, source in table.items():
        _answer(nb, grade_id, source)
    return nb


def correct(nb):
    return _answers(nb, ANSWERS)


def wrong(nb):
    return _answers(nb, WRONG)


def unanswered(nb):
    return nb


def infinite_loop(nb):
    nb = correct(nb)
    return _answer(nb, "answer_square_sum", "def square_sum(x):\n    while True:\n        pass")


def raising(nb):
    nb = correct(nb)
    return _answer(nb, "answer_gradient", 'raise ValueError("I give up")')


def tampered_test(nb):
    nb = wrong(nb)
    return _answer(nb, "test_square_sum", 'print("✓ square_sum")')


def deleted_test(nb):
    nb = correct(nb)
    nb["cells"] = [
        c
        for c in nb["cells"]
        if c["metadata"].get("nbgrader", {}).get("grade_id") != "test_gradient"
    ]
    return nb


def swallows_interrupt(nb):
    nb = correct(nb)
    loop = (
        "while True:\n    try:\n        sum(range(10**6))\n"
        "    except KeyboardInterrupt:\n        pass"
    )
    return _answer(nb, "answer_gradient", loop)


def kernel_dies(nb):
    nb = correct(nb)
    return _answer(nb, "answer_mse", "import os\nos._exit(1)")


SUBMISSIONS = {
    "correct": correct,
    "wrong": wrong,
    "unanswered": unanswered,
    "infinite_loop": infinite_loop,
    "raising": raising,
    "tampered_test": tampered_test,
    "deleted_test": deleted_test,
    "swallows_interrupt": swallows_interrupt,
    "kernel_dies": kernel_dies,
}
EXPECTED = {  # kind -> (status, points per test)
    "correct": ("ok", {"test_square_sum": 2.0, "test_gradient": 3.0, "test_mse": 5.0}),
    "wrong": ("ok", {"test_square_sum": 0.0, "test_gradient": 0.0, "test_mse": 0.0}),
    "unanswered": ("ok", {"test_square_sum": 0.0, "test_gradient": 0.0, "test_mse": 0.0}),
    "infinite_loop": ("timeout", {"test_square_sum": 0.0, "test_gradient": 3.0, "test_mse": 5.0}),
    "raising": ("ok", {"test_square_sum": 2.0, "test_gradient": 0.0, "test_mse": 5.0}),
    "tampered_test": ("ok", {"test_square_sum": 0.0, "test_gradient": 0.0, "test_mse": 0.0}),
    "deleted_test": ("ok", {"test_square_sum": 2.0, "test_gradient": 3.0, "test_mse": 5.0}),
    "swallows_interrupt": (
        "timeout",
        {"test_square_sum": 2.0, "test_gradient": 0.0, "test_mse": 5.0},
    ),
    "kernel_dies": ("kernel_died", {"test_square_sum": 2.0, "test_gradient": 3.0, "test_mse": 0.0}),
    "corrupt": ("unreadable", {}),
}


def write_submission(folder: Path, student: str, kind: str, flat: bool = False) -> Path:
    """One submission in nbgrader's ``<student>/hw1/squares.ipynb`` layout (or flat)."""
    path = (
        folder / f"{student}.ipynb" if flat else folder / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "corrupt":
        path.write_text('{"cells": [ this is not json')
        return path
    nb = SUBMISSIONS[kind](copy.deepcopy(student_version()))
    path.write_text(json.dumps(nb, indent=1))
    return path
