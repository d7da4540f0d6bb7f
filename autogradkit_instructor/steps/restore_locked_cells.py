"""RestoreLockedCells: tests and locked cells come from the instructor, never the student."""

from __future__ import annotations

import copy
import re

from autogradkit._i18n import N_

from .. import cells

__all__ = ["RestoreLockedCells"]


class RestoreLockedCells:
    """Rebuild the submission around the released cells, found by ``grade_id``.

    * a locked or test cell is replaced by the released one; if it was edited or deleted,
      that is reported (and it is restored where it belongs);
    * an answer cell keeps the student's source but gets the released metadata (points cannot
      be edited); a deleted answer cell comes back as the unanswered stub and is reported;
    * the student's own extra cells stay where they are; copies of graded cells and unknown
      grade_ids lose their nbgrader metadata, so they are run but never scored.
    """

    name = "restore_locked_cells"
    requires: tuple[str, ...] = ()

    def __call__(self, nb: dict, ctx) -> dict:
        released = [c for c in ctx.student["cells"] if cells.grade_id(c)]
        order = {cells.grade_id(c): i for i, c in enumerate(released)}
        present = {cells.grade_id(c) for c in nb["cells"]}
        chosen = _chosen_copies(nb["cells"], released)
        out, done = [], set()
        for index, cell in enumerate(nb["cells"]):
            gid = cells.grade_id(cell)
            if gid in order and gid not in done and chosen.get(gid) == index:
                for earlier in released[: order[gid]]:
                    self._add_missing(earlier, present, done, out, ctx)
                out.append(self._restore(cell, released[order[gid]], ctx))
                done.add(gid)
            else:
                out.append(self._plain(cell, gid, ctx))
        for cell in released:
            self._add_missing(cell, present, done, out, ctx)
        nb["cells"] = _unique_ids(out)
        nb["metadata"]["kernelspec"] = copy.deepcopy(ctx.student["metadata"].get("kernelspec", {}))
        return nb

    def _restore(self, cell: dict, released: dict, ctx) -> dict:
        gid = cells.grade_id(released)
        if cells.is_locked(released):
            if (
                cells.text(cell.get("source")) != released["source"]
                or cell["cell_type"] != released["cell_type"]
            ):
                changed = (
                    N_("test cell {gid} was changed; the original was restored")
                    if cells.is_test(released)
                    else N_("locked cell {gid} was changed; the original was restored")
                )
                ctx.issues.append(changed.format(gid=gid))
            return copy.deepcopy(released)
        restored = copy.deepcopy(released)
        restored["source"] = cells.text(cell.get("source"))
        if cell["cell_type"] != released["cell_type"]:
            ctx.issues.append(
                N_("answer cell {gid} was turned into a {cell_type} cell").format(
                    gid=gid, cell_type=cell["cell_type"]
                )
            )
        return restored

    def _add_missing(self, released: dict, present: set, done: set, out: list, ctx) -> None:
        gid = cells.grade_id(released)
        if gid in present or gid in done:
            return
        if cells.is_solution(released):
            ctx.issues.append(
                N_("answer cell {gid} is missing; it was graded as unanswered").format(gid=gid)
            )
        else:
            deleted = (
                N_("test cell {gid} was deleted; it was restored")
                if cells.is_test(released)
                else N_("locked cell {gid} was deleted; it was restored")
            )
            ctx.issues.append(deleted.format(gid=gid))
        out.append(copy.deepcopy(released))
        done.add(gid)

    def _plain(self, cell: dict, gid: str | None, ctx) -> dict:
        if "nbgrader" in cell.get("metadata", {}):
            if gid:
                ctx.issues.append(
                    N_("an extra cell claimed grade_id {gid}; it was not scored").format(gid=gid)
                )
            del cell["metadata"]["nbgrader"]
        return cell


def _chosen_copies(student_cells: list[dict], released: list[dict]) -> dict[str, int]:
    """For each released grade_id, the index of the student's copy that is graded.

    When a student duplicated a cell, the copy that keeps the release's order is chosen (the
    first after the previous released cell), so a test copied to the top does not run before
    its answer. The other copies run as plain cells.
    """
    where: dict[str, list[int]] = {}
    for index, cell in enumerate(student_cells):
        where.setdefault(cells.grade_id(cell), []).append(index)
    chosen, last = {}, -1
    for cell in released:
        copies = where.get(cells.grade_id(cell), [])
        if copies:
            chosen[cells.grade_id(cell)] = next((i for i in copies if i > last), copies[-1])
            last = max(last, chosen[cells.grade_id(cell)])
    return chosen


def _unique_ids(notebook_cells: list[dict]) -> list[dict]:
    """Give each cell that has an id one nbformat takes (1 to 64 of ``a-z A-Z 0-9 - _``),
    once: a repeated id ``x`` becomes ``x-2``, an id of another type or shape (a number, a
    dict, markup) ``cell-<n>``. A graded copy must be a valid notebook.

    Example:
        >>> [c["id"] for c in _unique_ids([{"id": "a"}, {"id": "a"}, {"id": 5}, {"id": "<b>"}])]
        ['a', 'a-2', 'cell-2', 'cell-3']
    """
    seen: set[str] = set()
    for index, cell in enumerate(notebook_cells):
        if "id" not in cell:
            continue  # a notebook older than nbformat 4.5 has none
        given = cell["id"]
        base = given if isinstance(given, str) and _CELL_ID.fullmatch(given) else f"cell-{index}"
        cell_id, number = base, 2
        while cell_id in seen:
            cell_id, number = f"{base[:56]}-{number}", number + 1
        cell["id"] = cell_id
        seen.add(cell_id)
    return notebook_cells


_CELL_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")  # nbformat 4.5's schema
