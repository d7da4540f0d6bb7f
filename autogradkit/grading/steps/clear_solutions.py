"""ClearSolutions: the student version has a stub where the instructor wrote the answer."""

from __future__ import annotations

from .. import cells

CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
TEXT_STUB = "YOUR ANSWER HERE"
BEGIN, END = "BEGIN SOLUTION", "END SOLUTION"


class ClearSolutions:
    """Replace each ``### BEGIN SOLUTION`` .. ``### END SOLUTION`` region with a stub.

    Code cells get ``# YOUR CODE HERE`` / ``raise NotImplementedError()``, markdown answers
    ``YOUR ANSWER HERE`` (nbgrader's stubs). An answer cell without markers is replaced
    whole; markers outside an answer cell are an authoring error.

    Example:
        >>> nb = {"metadata": {}, "cells": [{"cell_type": "code", "metadata": {"nbgrader": {
        ...     "solution": True, "grade_id": "a"}}, "source": "x = 1"}]}
        >>> print(ClearSolutions()(nb, None)["cells"][0]["source"])
        # YOUR CODE HERE
        raise NotImplementedError()
    """

    name = "clear_solutions"
    requires: tuple[str, ...] = ()

    def __call__(self, nb: dict, ctx) -> dict:
        for index, cell in enumerate(nb["cells"]):
            stub = CODE_STUB if cell["cell_type"] == "code" else TEXT_STUB
            try:
                source, found = cells.replace_regions(cells.text(cell["source"]), BEGIN, END, stub)
            except ValueError as error:
                raise ValueError(f"cell {cells.grade_id(cell) or index}: {error}") from None
            if found and not cells.is_solution(cell):
                raise ValueError(
                    f"cell {cells.grade_id(cell) or index} has a solution region but is not "
                    "marked as a solution cell (nbgrader metadata 'solution': true)"
                )
            cell["source"] = source if found or not cells.is_solution(cell) else stub
        nb["metadata"].pop("celltoolbar", None)
        return nb
