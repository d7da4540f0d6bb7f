"""CollectResults: ✓/✗ lines and the error name, never a traceback."""

from __future__ import annotations

from types import SimpleNamespace

from nbformat.v4 import new_output

from autogradkit_instructor.steps import CollectResults

from .helpers import code, markdown, notebook


def _collect(*cells):
    ctx = SimpleNamespace(results={}, references={}, issues=[], review=[])
    CollectResults()(notebook(*cells), ctx)
    return ctx.results


def test_failed_check_keeps_lines_and_error_but_no_traceback():
    cell = code("check()", grade_id="t", grade=True, locked=True, points=2)
    cell.execution_count = 3
    cell.outputs = [
        new_output("stream", name="stdout", text="✓ a\nnoise\n✗ b: hint\n"),
        new_output(
            "error", ename="AssertionError", evalue="b: hint", traceback=["secret_test_code()"]
        ),
    ]
    result = _collect(cell)["t"]
    assert (result.status, result.lines, result.error) == (
        "failed",
        ["✓ a", "✗ b: hint"],
        "AssertionError: b: hint",
    )


def test_cell_that_never_ran_is_not_run_and_manual_answers_are_manual():
    results = _collect(
        code("check()", grade_id="t", grade=True, locked=True, points=1),
        markdown("essay", grade_id="m", grade=True, solution=True, points=4),
    )
    assert results["t"].status == "not_run" and results["m"].status == "manual"
    assert results["m"].max_points == 4.0
