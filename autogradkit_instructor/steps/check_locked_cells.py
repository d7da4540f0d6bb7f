"""CheckLockedCells: ``validate`` warns a student who edited a cell that will be replaced."""

from __future__ import annotations

from autogradkit._i18n import N_

from .. import cells

__all__ = ["CheckLockedCells"]


class CheckLockedCells:
    """Compare each locked or test cell with the checksum stored at release.

    Editing a test cell changes nothing at grading time (it is restored), so the student
    should know before submitting. Cells released without a checksum are skipped.

    Example:
        >>> from types import SimpleNamespace
        >>> cell = {"cell_type": "code", "source": "check(f(2))", "metadata": {"nbgrader": {
        ...     "grade": True, "solution": False, "locked": True, "grade_id": "t1",
        ...     "points": 1, "checksum": "0" * 32}}}
        >>> ctx = SimpleNamespace(issues=[])
        >>> _ = CheckLockedCells()({"cells": [cell]}, ctx)
        >>> ctx.issues
        ['test cell t1 was changed; it will be restored from the original when graded']
    """

    name = "check_locked_cells"
    requires: tuple[str, ...] = ()

    def __call__(self, nb: dict, ctx) -> dict:
        for cell in nb["cells"]:
            stored = cells.meta(cell).get("checksum")
            if not stored or not cells.is_locked(cell):
                continue
            if (
                cells.compute_checksum(cell) != stored
                or cells.meta(cell).get("cell_type", cell["cell_type"]) != cell["cell_type"]
            ):
                changed = (
                    N_(
                        "test cell {gid} was changed; it will be restored from the original "
                        "when graded"
                    )
                    if cells.is_test(cell)
                    else N_(
                        "locked cell {gid} was changed; it will be restored from the original "
                        "when graded"
                    )
                )
                ctx.issues.append(changed.format(gid=cells.grade_id(cell)))
        return nb
