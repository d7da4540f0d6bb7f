"""Score: points per graded cell, with nbgrader's partial-credit rule."""

from __future__ import annotations

from .. import cells

__all__ = ["Score"]


class Score:
    """Give each test cell its points.

    * an error (a failed check, or any exception) or a cell that never ran: 0;
    * a number as the cell's result (``execute_result``): that many points, partial credit as
      in nbgrader, kept between 0 and the cell's points; a cell that showed more than one
      result (student code called ``sys.displayhook`` as it ran), or a result whose
      ``text/plain`` is not text (the kernel's display machinery replaced), fails, for review;
    * an ``assert``-style cell decided in the kernel (no references, and not judged by the
      grader on its values, ``ctx.judged_here``) before which the guard sent no report of
      its own shape (``ctx.unguarded``) fails, for review: a submission that removes the
      guard must not then pass by patching numpy;
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
            shown = _results(by_id.get(gid, {}))
            if result.status == "passed" and len(shown) > 1:  # student code showed one too
                ctx.review.append(f"{gid}: the test cell showed {len(shown)} results, not one")
                result.status = "failed"
            if result.status == "passed" and shown and not cells.is_text(_plain(shown[0])):
                ctx.review.append(f"{gid}: the test cell's result was not text")
                result.status = "failed"
            judged_elsewhere = {*getattr(ctx, "references", {}), *getattr(ctx, "judged_here", ())}
            in_kernel = gid not in judged_elsewhere
            if result.status == "passed" and in_kernel and gid in getattr(ctx, "unguarded", ()):
                ctx.review.append(f"{gid}: no tamper report of the guard's shape before it")
                result.status = "failed"
            if result.status != "passed":
                result.points = 0.0
                continue
            partial = _partial_credit(shown)
            if partial is None or partial >= result.max_points:
                result.points = result.max_points
            else:
                result.points = max(0.0, partial)
                result.status = "partial" if result.points > 0 else "failed"
        return nb


def _results(cell: dict) -> list[dict]:
    """The ``execute_result`` outputs of ``cell``: its last expression's value, and any other
    a student's code showed while the cell ran (``sys.displayhook(5.0)`` in an answer)."""
    return [out for out in cell.get("outputs", []) if out.get("output_type") == "execute_result"]


def _plain(result: dict):
    data = result.get("data")
    return data.get("text/plain", "") if isinstance(data, dict) else ""


def _partial_credit(shown: list[dict]) -> float | None:
    """The number the cell evaluated to, if it showed one result and that is one number."""
    if len(shown) != 1 or not cells.is_text(_plain(shown[0])):
        return None
    try:
        return float(cells.text(_plain(shown[0])))
    except ValueError:
        return None
