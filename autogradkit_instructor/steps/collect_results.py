"""CollectResults: what each graded cell did, judged in the grader's process."""

from __future__ import annotations

from autogradkit._i18n import ENGLISH, N_
from autogradkit.grading.observations import (
    BUILTIN_ERRORS,
    failed_line,
    judge_record,
    passed_line,
    records_in,
)

from .. import cells, untrusted
from ..context import CellResult
from .strip_hidden_tests import BEGIN

__all__ = ["MAX_ERROR_CHARS", "MAX_LINES", "CollectResults"]

MAX_ERROR_CHARS = 300
MAX_LINES = 50  # ✓/✗ lines kept of an assert cell's output (a kernel can print thousands)


class CollectResults:
    """Make one ``CellResult`` per graded cell.

    A test cell with references (``ctx.references``: what its checks saw on the instructor's
    solution, same seeds) is judged from its own check records, here: each expected check must
    have sent one record whose observations match. Its lines are the grader's words. Any other
    test cell (an nbgrader ``assert`` cell) passes when it raised nothing; its ``✓``/``✗`` lines
    and ``ExceptionName: message`` are kept, never a traceback.

    Example:
        >>> from types import SimpleNamespace
        >>> cell = {"cell_type": "code", "execution_count": 1, "metadata": {"nbgrader": {
        ...     "grade": True, "grade_id": "t1", "points": 2}}, "outputs": [
        ...     {"output_type": "stream", "name": "stdout", "text": "✓ sum\\nchatter\\n"}]}
        >>> ctx = SimpleNamespace(results={}, references={}, issues=[])
        >>> _ = CollectResults()({"cells": [cell]}, ctx)
        >>> result = ctx.results["t1"]
        >>> result.status, result.lines, result.error
        ('passed', ['✓ sum'], '')
    """

    name = "collect_results"
    requires: tuple[str, ...] = ("execute",)

    def __call__(self, nb: dict, ctx) -> dict:
        title = ""
        for cell in nb["cells"]:
            title = _heading(cell) or title
            gid = cells.grade_id(cell)
            if cells.is_solution(cell) and not cells.is_grade(cell) and _error(cell):
                ctx.issues.append(
                    N_("answer cell {gid} raised {error}").format(gid=gid, error=_error_name(cell))
                )
            if not cells.is_grade(cell) or not gid:
                continue
            result = CellResult(gid, cells.points(cell), title=title)
            if cells.is_manual(cell):
                result.status = "manual"
            elif gid in ctx.references and _ran(cell):
                ctx.review += _judge(cell, ctx.references[gid], result, getattr(ctx, "tr", ENGLISH))
            elif cells.is_test(cell) and _ran(cell):
                result.hidden = BEGIN in cells.text(cell.get("source"))
                _read_outputs(cell, result)
            ctx.results[gid] = result
        return nb


def _heading(cell: dict) -> str:
    """The first Markdown heading of ``cell`` without its #s, or ""."""
    if cell["cell_type"] != "markdown":
        return ""
    lines = cells.text(cell.get("source")).splitlines()
    return next((line.lstrip("#").strip() for line in lines if line.startswith("#")), "")


def _ran(cell: dict) -> bool:
    return cell.get("execution_count") is not None or bool(cell.get("outputs"))


def _error(cell: dict) -> dict | None:
    return next((o for o in cell.get("outputs", []) if o.get("output_type") == "error"), None)


def _error_name(cell: dict, tr=ENGLISH) -> str:
    """The error's class name when it is one of Python's; a class a submission made up could
    spell out anything, so it is not repeated."""
    name = str((_error(cell) or {}).get("ename", ""))
    return name if name in BUILTIN_ERRORS else tr("an exception")


def _judge(cell: dict, references: list, result: CellResult, tr) -> list[str]:
    """Judge the cell's records against the solution's; return what needs a person's look.

    A test cell that ran without an error but whose checks did not each report exactly once
    was tampered with (a replaced checks module or function, a forged record): it fails, and
    the row is flagged for review.
    """
    seen, unreadable = records_in(cell)
    by_check: dict[str, list] = {}
    for record in seen:
        by_check.setdefault(record.check, []).append(record)
    passed, hidden, review = True, [], []
    raised = _error(cell) is not None
    for expected in references:
        copies = by_check.get(expected.check, [])
        verdict = judge_record(expected, copies[0] if len(copies) == 1 else None, tr)
        if len(copies) != 1 and not raised:
            review.append(f"{result.grade_id}: check {expected.check} reported {len(copies)} times")
        if len(copies) > 1:
            verdict.passed = False
            verdict.lines = [failed_line(tr, tr.text(expected.title), tr("reported twice"))]
        passed = passed and verdict.passed
        if verdict.hidden:
            hidden.append(verdict.passed)
        else:
            result.lines += verdict.lines
    if hidden:
        if all(hidden):
            result.lines.append(passed_line(tr, tr("hidden tests passed")))
        else:
            result.lines.append(tr("✗ {name}", name=tr("hidden tests failed")))
    if unreadable:
        review.append(f"{result.grade_id}: {unreadable} check records could not be read")
    if raised:
        result.error = tr("the test cell raised {error}", error=_error_name(cell, tr))
        passed = False
    result.status = "passed" if passed else "failed"
    return review


def _read_outputs(cell: dict, result: CellResult) -> None:
    """Pass or fail by the cell's error; its ✓/✗ lines and error are text a kernel printed,
    kept as bounded lines that show as they are (``untrusted``)."""
    result.status = "passed"
    lines = []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream" and out.get("name") == "stdout":
            text = cells.text(out.get("text"))
            lines += [line for line in text.splitlines() if line[:1] in ("✓", "✗")]
        elif kind == "error" and not result.error:
            message = str(out.get("evalue", "")).strip().split("\n")[0]
            error = f"{out.get('ename', 'Error')}: {message}" if message else out.get("ename", "")
            if out.get("ename") == "CheckFailed":  # a practice check's own ✗ line
                error = message
            result.error = untrusted.text(error, MAX_ERROR_CHARS)
            result.status = "failed"
    result.lines += untrusted.bounded(lines, MAX_LINES)
