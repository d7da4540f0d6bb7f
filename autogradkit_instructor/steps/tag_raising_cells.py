"""TagRaisingCells: cells that raise in the student version are expected to, and stored clean."""

from __future__ import annotations

__all__ = ["TAG", "IGNORE_OUTPUT", "TagRaisingCells"]

TAG = "raises-exception"
IGNORE_OUTPUT = "nbval-ignore-output"


class TagRaisingCells:
    """Tag every code cell with an error output, and store it without outputs.

    A student's copy holds no error output: one that raises only because nothing is answered
    yet (``NotImplementedError``, a check's "not answered yet") would be a red traceback before
    the student has done anything, and one the instructor tagged ``raises-exception`` (the error
    is the lesson) shows its error when the student runs it. ``raises-exception`` lets
    JupyterLab's "Run all" and nbval go on past them; ``nbval-ignore-output`` tells nbval not
    to compare what they print (the instructor's notebook keeps and compares every error).

    Example:
        >>> nb = {"cells": [{"cell_type": "code", "metadata": {},
        ...     "outputs": [{"output_type": "error", "ename": "NotImplementedError"}]}]}
        >>> cell = TagRaisingCells()(nb, None)["cells"][0]
        >>> cell["metadata"]["tags"], cell["outputs"]
        (['raises-exception', 'nbval-ignore-output'], [])
    """

    name = "tag_raising_cells"
    requires: tuple[str, ...] = ("recompute_outputs",)

    def __call__(self, nb: dict, ctx) -> dict:
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                continue
            if any(out.get("output_type") == "error" for out in cell.get("outputs", [])):
                tags = cell["metadata"].setdefault("tags", [])
                tags += [tag for tag in (TAG, IGNORE_OUTPUT) if tag not in tags]
                cell["outputs"] = []
        return nb
