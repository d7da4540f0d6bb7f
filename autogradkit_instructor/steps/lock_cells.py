"""LockCells: checksums and read-only flags on the student version, as nbgrader writes them."""

from __future__ import annotations

from .. import cells

__all__ = ["LockCells"]


class LockCells:
    """Store ``checksum`` and ``cell_type`` in each nbgrader cell and lock the read-only ones.

    The checksum lets ``validate`` and ``grade`` tell whether a student changed a locked cell;
    ``editable``/``deletable`` make JupyterLab refuse to edit or delete it in the first place.
    Test and locked cells become read-only; answer cells only undeletable (nbgrader's rules).

    Example:
        >>> cell = {"cell_type": "code", "source": "check()", "metadata": {"nbgrader": {
        ...     "grade": True, "solution": False, "locked": True, "grade_id": "t", "points": 1}}}
        >>> out = LockCells()({"cells": [cell]}, None)["cells"][0]["metadata"]
        >>> out["editable"], out["deletable"], len(out["nbgrader"]["checksum"])
        (False, False, 32)
    """

    name = "lock_cells"
    requires: tuple[str, ...] = ("clear_solutions", "strip_hidden_tests")

    def __call__(self, nb: dict, ctx) -> dict:
        for cell in nb["cells"]:
            if not (cells.is_grade(cell) or cells.is_solution(cell) or cells.is_locked(cell)):
                continue
            cell["metadata"]["nbgrader"]["checksum"] = cells.compute_checksum(cell)
            cell["metadata"]["nbgrader"]["cell_type"] = cell["cell_type"]
            cell["metadata"]["deletable"] = False
            if cells.is_locked(cell):
                cell["metadata"]["editable"] = False
        return nb
