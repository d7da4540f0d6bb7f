"""ClearSolutions: the student version has a stub where the instructor wrote the answer."""

from __future__ import annotations

import ast
import textwrap

from autogradkit._i18n import ENGLISH, N_, Catalog, catalog, notebook_language

from .. import cells, pyast

__all__ = ["BEGIN", "END", "CODE_STUB", "VALUE_STUB", "TEXT_STUB", "code_stub", "ClearSolutions"]

# nbgrader's placeholders, in the edition's language: what marks a cell as unanswered is the
# NotImplementedError or the ``...`` below them, never these words
CODE_STUB = N_("# YOUR CODE HERE") + "\nraise NotImplementedError()"
VALUE_STUB = N_("# YOUR ANSWER HERE")
TEXT_STUB = N_("YOUR ANSWER HERE")
BEGIN, END = "BEGIN SOLUTION", "END SOLUTION"


def _in(tr: Catalog, stub: str) -> str:
    """``stub`` with its first line (the words) in ``tr``'s language."""
    words, _, rest = stub.partition("\n")
    return tr(words) + (f"\n{rest}" if rest else "")


def code_stub(region: str, indent: str, tr: Catalog = ENGLISH) -> str:
    """What the student finds where the solution was.

    At the top of a cell, a solution that sets values becomes ``name = ...`` for each name it
    sets: running the cell raises nothing, and the check says "not answered yet". Anywhere
    else (a function's body) it is nbgrader's stub, whose ``NotImplementedError`` the check
    also reads as "not answered yet".

    Example:
        >>> print(code_stub("a_grad = 3.0\\nb_grad, c_grad = 1.0, 2.0", ""))
        # YOUR ANSWER HERE
        a_grad = ...
        b_grad = ...
        c_grad = ...
    """
    names = _names_set(region) if not indent else []
    if not names:
        return _in(tr, CODE_STUB)
    return "\n".join([_in(tr, VALUE_STUB), *(f"{name} = ..." for name in names)])


def _names_set(region: str) -> list[str]:
    """The names a block of top-level statements assigns, in order; [] if it defines a
    function or class (that is code to write, not values to give) or does not parse."""
    try:
        tree = pyast.parse(textwrap.dedent(region))
    except SyntaxError:
        return []
    names: list[str] = []
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            return []
        targets = getattr(statement, "targets", None) or [getattr(statement, "target", None)]
        for target in targets:
            for node in ast.walk(target) if target is not None else ():
                if isinstance(node, ast.Name) and node.id not in names:
                    names.append(node.id)
    return names


class ClearSolutions:
    """Replace each ``### BEGIN SOLUTION`` .. ``### END SOLUTION`` region with a stub.

    Code cells get ``code_stub``'s stub, markdown answers ``YOUR ANSWER HERE`` (nbgrader's),
    in the notebook's language (its metadata; ``# 在此编写代码`` in zh-CN). An answer cell
    without markers is replaced whole; markers outside an answer cell are an authoring error.

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
        tr = catalog(notebook_language(nb))
        for index, cell in enumerate(nb["cells"]):
            code = cell["cell_type"] == "code"
            stub = (lambda region, indent: code_stub(region, indent, tr)) if code else tr(TEXT_STUB)
            source, found = cells.replace_cell_regions(cell, index, BEGIN, END, stub)
            if found and not cells.is_solution(cell):
                raise ValueError(
                    f"cell {cells.grade_id(cell) or index} has a solution region but is not "
                    "marked as a solution cell (nbgrader metadata 'solution': true)"
                )
            whole = _in(tr, CODE_STUB) if code else tr(TEXT_STUB)
            cell["source"] = source if found or not cells.is_solution(cell) else whole
        nb["metadata"].pop("celltoolbar", None)
        return nb
