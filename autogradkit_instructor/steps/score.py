"""Score: points per graded cell, with nbgrader's partial-credit rule."""

from __future__ import annotations

from .. import cells

__all__ = ["Score"]


class Score:
    """Give each test cell its points.

    * an error (a failed check, or any exception) or a cell that never ran: 0;
    * a number as the cell's result (``execute_result``): that many points, partial credit as
      in nbgrader, kept between 0 and the cell's points;
    * anything else: full points.

    Unlike nbgrader, text on stderr (a warning) does not cost points. Manually graded answers
    get 0 here and stay ``manual``.

    Example:
        >>> from types import SimpleNamespace
        >>> from autogradkit_instructor.context import CellResult
        >>> cell = {"cell_type": "code", "execution_count": 1, "outputs": [
        ...     {"output_type": "execute_result", "data": {"text/plain": "1.5"}}],
        ...     "metadata": {"nbgrader": {"grade": True, "grade_id": "t", "points": 2}}}
        >>> ctx = SimpleNamespace(results={"t": CellResult("t", 2.0, status="passed")})
        >>> _ = Score()({"cells": [cell]}, ctx)
        >>> ctx.results["t"].points, ctx.results["t"].status
        (1.5, 'partial')
    """

    name = "score"
    requires: tuple[str, ...] = ("collect_results",)

    def __call__(self, nb: dict, ctx) -> dict:
        by_id = {cells.grade_id(c): c for c in nb["cells"] if cells.is_test(c)}
        for gid, result in ctx.results.items():
            if result.status != "passed":
                result.points = 0.0
                continue
            partial = _partial_credit(by_id[gid])
            if partial is None or partial >= result.max_points:
                result.points = result.max_points
            else:
                result.points = max(0.0, partial)
                result.status = "partial" if result.points > 0 else "failed"
        return nb


def _partial_credit(cell: dict) -> float | None:
    """The number the cell evaluated to, if its ``execute_result`` is one number."""
    for out in cell.get("outputs", []):
        if out.get("output_type") == "execute_result":
            try:
                return float(cells.text(out.get("data", {}).get("text/plain", "")))
            except ValueError:
                return None
    return None
