"""TagRaisingCells: cells that raise in the student version are expected to raise."""

from __future__ import annotations

TAG = "raises-exception"


class TagRaisingCells:
    """Add the ``raises-exception`` tag to every code cell with an error output.

    In the student version an unanswered exercise raises ``NotImplementedError`` and the checks
    after it fail; the tag tells JupyterLab's "Run all" to go on and tells nbval the error is
    the expected output.

    Example:
        >>> nb = {"cells": [{"cell_type": "code", "metadata": {},
        ...     "outputs": [{"output_type": "error", "ename": "NotImplementedError"}]}]}
        >>> TagRaisingCells()(nb, None)["cells"][0]["metadata"]["tags"]
        ['raises-exception']
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
                    tags.append(TAG)
        return nb
