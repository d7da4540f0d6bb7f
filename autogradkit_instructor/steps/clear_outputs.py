"""ClearOutputs: nothing stored in a file counts; only what runs here produces outputs."""

from __future__ import annotations

__all__ = ["ClearOutputs"]


class ClearOutputs:
    """Empty every code cell's outputs and execution count.

    Grading must never trust outputs saved in a submission: a cell the kernel never reached
    (after a crash, say) would otherwise still show the student's stored "✓".

    Example:
        >>> nb = {"cells": [{"cell_type": "code", "outputs": [{"output_type": "stream"}],
        ...     "execution_count": 3, "metadata": {"execution": {}}}]}
        >>> ClearOutputs()(nb, None)["cells"][0]
        {'cell_type': 'code', 'outputs': [], 'execution_count': None, 'metadata': {}}
    """

    name = "clear_outputs"
    requires: tuple[str, ...] = ()

    def __call__(self, nb: dict, ctx) -> dict:
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                cell["outputs"] = []
                cell["execution_count"] = None
                cell.get("metadata", {}).pop("execution", None)
        return nb
