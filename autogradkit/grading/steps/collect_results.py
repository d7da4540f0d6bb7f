"""CollectResults: read what each graded cell did from its fresh outputs."""

from __future__ import annotations

from .. import cells
from ..context import CellResult
from .strip_hidden_tests import BEGIN

MAX_ERROR_CHARS = 300


class CollectResults:
    """Make one ``CellResult`` per graded cell, with the ✓/✗ lines and the error it raised.

    Only the check lines and ``ExceptionName: message`` are kept: never a traceback, which
    would quote the (possibly hidden) test code.

    Example:
        >>> from types import SimpleNamespace
        >>> cell = {"cell_type": "code", "execution_count": 1, "metadata": {"nbgrader": {
        ...     "grade": True, "grade_id": "t1", "points": 2}}, "outputs": [
        ...     {"output_type": "stream", "name": "stdout", "text": "✓ sum\\nchatter\\n"}]}
        >>> ctx = SimpleNamespace(results={})
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
            if not cells.is_grade(cell) or not gid:
                continue
            result = CellResult(gid, cells.points(cell), title=title)
            result.hidden = BEGIN in cells.text(cell.get("source"))
            if cells.is_manual(cell):
                result.status = "manual"
            elif cells.is_test(cell):
                _read_outputs(cell, result)
            ctx.results[gid] = result
        return nb


def _heading(cell: dict) -> str:
    """The first Markdown heading of ``cell`` without its #s, or ""."""
    if cell["cell_type"] != "markdown":
        return ""
    lines = cells.text(cell.get("source")).splitlines()
    return next((line.lstrip("#").strip() for line in lines if line.startswith("#")), "")


def _read_outputs(cell: dict, result: CellResult) -> None:
    if cell.get("execution_count") is None and not cell.get("outputs"):
        return  # never ran: stays "not_run"
    result.status = "passed"
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream" and out.get("name") == "stdout":
            text = cells.text(out.get("text"))
            result.lines += [line for line in text.splitlines() if line[:1] in ("✓", "✗")]
        elif kind == "error" and not result.error:
            message = str(out.get("evalue", "")).strip().split("\n")[0]
            error = f"{out.get('ename', 'Error')}: {message}" if message else out.get("ename", "")
            result.error = error[:MAX_ERROR_CHARS]
            result.status = "failed"
