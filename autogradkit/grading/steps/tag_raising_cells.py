"""TagRaisingCells: cells that raise in the student version are expected to, and stored clean."""

from __future__ import annotations

TAG = "raises-exception"
IGNORE_OUTPUT = "nbval-ignore-output"


class TagRaisingCells:
    """Tag every code cell with an error output; store the answer-dependent ones empty.

    A cell that already carried ``raises-exception`` in the instructor's notebook raises on
    purpose (the error is the lesson): it keeps its error output. Any other cell raises only
    because the student has not answered yet (``NotImplementedError``, a ``NameError`` in the
    check after it): its outputs are cleared, so the student's copy shows no red traceback,
    and ``nbval-ignore-output`` tells nbval not to compare what it prints. Both get the
    ``raises-exception`` tag, so JupyterLab's "Run all" and nbval go on past them.

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
                if TAG not in tags:
                    tags += [TAG, IGNORE_OUTPUT]
                    cell["outputs"] = []
        return nb
