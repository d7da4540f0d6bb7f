"""StripHiddenTests: hidden tests never reach the student version."""

from __future__ import annotations

from .. import cells

__all__ = ["BEGIN", "END", "StripHiddenTests"]

BEGIN, END = cells.HIDDEN_TESTS


class StripHiddenTests:
    """Delete each ``### BEGIN HIDDEN TESTS`` .. ``### END HIDDEN TESTS`` region, markers too.

    Hidden tests may only live in test (grade) cells: anywhere else they would be lost at
    grading time, so that is reported as an authoring error.

    Example:
        >>> src = "check(f(1))\\n### BEGIN HIDDEN TESTS\\ncheck(f(2))\\n### END HIDDEN TESTS"
        >>> nb = {"cells": [{"cell_type": "code", "source": src,
        ...     "metadata": {"nbgrader": {"grade": True}}}]}
        >>> StripHiddenTests()(nb, None)["cells"][0]["source"]
        'check(f(1))'
    """

    name = "strip_hidden_tests"
    requires: tuple[str, ...] = ()

    def __call__(self, nb: dict, ctx) -> dict:
        for index, cell in enumerate(nb["cells"]):
            source, found = cells.replace_cell_regions(cell, index, BEGIN, END, None)
            if found and not cells.is_grade(cell):
                raise ValueError(
                    f"cell {cells.grade_id(cell) or index} has hidden tests but is not a grade "
                    "cell (nbgrader metadata 'grade': true)"
                )
            cell["source"] = source
        return nb
