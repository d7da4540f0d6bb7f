"""InjectHiddenTests: the graded copy runs the full tests, hidden ones included."""

from __future__ import annotations

from .. import cells
from .strip_hidden_tests import BEGIN, END

__all__ = ["InjectHiddenTests"]


class InjectHiddenTests:
    """Give every test cell its instructor source, hidden test regions included.

    The hidden code is remembered in ``ctx.hidden`` so the feedback writer can prove it never
    shows any of it to the student.

    Example:
        >>> from types import SimpleNamespace
        >>> meta = {"nbgrader": {"grade": True, "grade_id": "t"}}
        >>> src = "check(1)\\n### BEGIN HIDDEN TESTS\\ncheck(2)\\n### END HIDDEN TESTS"
        >>> ctx = SimpleNamespace(hidden=[], source={"cells": [
        ...     {"cell_type": "code", "metadata": meta, "source": src}]})
        >>> nb = {"cells": [{"cell_type": "code", "metadata": meta, "source": "check(1)"}]}
        >>> nb = InjectHiddenTests()(nb, ctx)
        >>> ctx.hidden
        ['check(2)']
    """

    name = "inject_hidden_tests"
    requires: tuple[str, ...] = ("restore_locked_cells",)

    def __call__(self, nb: dict, ctx) -> dict:
        tests = {cells.grade_id(c): c for c in ctx.source["cells"] if cells.is_test(c)}
        for cell in nb["cells"]:
            original = tests.get(cells.grade_id(cell))
            if original is not None and cells.is_test(cell):
                cell["source"] = cells.text(original["source"])
                hidden = cells.regions(cell["source"], BEGIN, END)
                ctx.hidden += [code.strip() for code in hidden if code.strip()]
        return nb
