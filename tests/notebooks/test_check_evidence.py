"""What earns points. No check decides in the kernel: every check of every notebook, run on
the instructor's solution, observes at least one value the answer produced
(``observations.is_evidence``). And predictions teach: they carry at most 10% of a notebook's
points (issue 29: any value a student could run is a value the student will run).

A check made only of ``obs.require`` gates, booleans, ``None`` and properties sends what a
kernel can send without any answer (issue 28: such a check scored 3/3 with a replaced
``IPython.display.display``); the grader never lets it pass, so an author learns it here.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import warnings

import pytest

from autogradkit.grading.observations import is_evidence
from autogradkit_instructor import cells
from autogradkit_instructor.build import read_text_source

from .exercises import COURSE, checks_of, compiled_cell

NOTEBOOKS = sorted(p.name for p in COURSE.iterdir() if (p / "checks.py").is_file())


def notebook_namespace(assignment: str) -> dict:
    """The notebook's globals after running every cell but the test cells (solutions in),
    as a student's finished notebook holds them; a cell that raises on purpose is passed."""
    nb = read_text_source(COURSE / assignment / f"{assignment}.py")
    scope: dict = {"__name__": "__main__"}
    for number, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or cells.is_test(cell):
            continue
        lines = cells.text(cell.source).splitlines()
        source = "\n".join(line for line in lines if not line.lstrip().startswith(("%", "!")))
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            with warnings.catch_warnings(), contextlib.suppress(Exception):
                warnings.simplefilter("ignore")
                exec(compiled_cell(source, f"<{assignment} cell {number}>"), scope)
    return scope


@pytest.fixture
def in_notebook_folder(assignment, monkeypatch):
    """Run as the notebook's kernel would: in its folder, its ``checks`` importable, and that
    ``checks`` forgotten afterwards (the next test's ``import checks`` is not this one)."""
    monkeypatch.chdir(COURSE / assignment)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.syspath_prepend(str(COURSE / assignment))
    monkeypatch.delitem(sys.modules, "checks", raising=False)
    yield
    sys.modules.pop("checks", None)


@pytest.mark.parametrize("assignment", NOTEBOOKS)
@pytest.mark.usefixtures("in_notebook_folder")
def test_every_check_observes_a_value_of_the_answer(assignment):
    scope = notebook_namespace(assignment)
    verdicts = {}
    for check in checks_of(assignment).check.checks:
        record = check.observe(**{name: scope.get(name) for name in check.answers})
        assert not record.stopped, f"the solution stops {check.name}: {record.stopped}"
        verdicts[check.name] = any(map(is_evidence, record.observations))
    assert all(verdicts.values()), [name for name, has_value in verdicts.items() if not has_value]


@pytest.mark.parametrize("assignment", NOTEBOOKS)
@pytest.mark.usefixtures("in_notebook_folder")
def test_predictions_carry_at_most_a_tenth_of_the_points(assignment):
    scope = notebook_namespace(assignment)
    checks = {check.name: check for check in checks_of(assignment).check.checks}
    nb = read_text_source(COURSE / assignment / f"{assignment}.py")
    total = predictions = 0.0
    for cell in nb.cells:
        if not cells.is_test(cell):
            continue
        called = [checks[n] for n in re.findall(r"^checks\.(\w+)\(\)$", cell.source, re.M)]
        total += cells.points(cell)
        if called and all(_is_prediction(check, scope) for check in called):
            predictions += cells.points(cell)
    assert predictions <= 0.1 * total, f"{predictions:g} of {total:g} points are predictions"


def _is_prediction(check, scope: dict) -> bool:
    """A check whose only values, on the solution, are predictions (``obs.predicted``)."""
    record = check.observe(**{name: scope.get(name) for name in check.answers})
    return not any(is_evidence(o) and not o.reveal for o in record.observations)
