"""Score: full, partial (a number as the result, like nbgrader) or zero."""

from __future__ import annotations

from types import SimpleNamespace

from nbformat.v4 import new_output

from autogradkit_instructor.context import CellResult
from autogradkit_instructor.steps import Score

from .helpers import code, notebook


def _score(status: str, value: str | None, points: float = 4.0):
    cell = code("check()", grade_id="t", grade=True, locked=True, points=points)
    if value is not None:
        cell.outputs = [new_output("execute_result", data={"text/plain": value}, execution_count=1)]
    ctx = SimpleNamespace(results={"t": CellResult("t", points, status=status)})
    Score()(notebook(cell), ctx)
    return ctx.results["t"].points, ctx.results["t"].status


def test_passed_cell_gets_full_points():
    assert _score("passed", None) == (4.0, "passed")
    assert _score("passed", "True") == (4.0, "passed")  # a check's return value


def test_numeric_result_is_partial_credit_clipped_to_the_range():
    assert _score("passed", "1.5") == (1.5, "partial")
    assert _score("passed", "9") == (4.0, "passed")
    assert _score("passed", "-2") == (0.0, "failed")  # no points is no partial credit


def test_failed_or_unrun_cells_get_zero():
    assert _score("failed", "3") == (0.0, "failed")
    assert _score("not_run", None) == (0.0, "not_run")
