"""RestoreLockedCells: tests and locked cells come from the instructor, never the student."""

from __future__ import annotations

import copy

from .. import cells


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
        out, done = [], set()
        for cell in nb["cells"]:
            gid = cells.grade_id(cell)
            if gid in order and gid not in done:
                for earlier in released[: order[gid]]:
                    self._add_missing(earlier, present, done, out, ctx)
                out.append(self._restore(cell, released[order[gid]], ctx))
                done.add(gid)
            else:
                out.append(self._plain(cell, gid, ctx))
        for cell in released:
            self._add_missing(cell, present, done, out, ctx)
        nb["cells"] = out
        nb["metadata"]["kernelspec"] = copy.deepcopy(ctx.student["metadata"].get("kernelspec", {}))
        return nb

    def _restore(self, cell: dict, released: dict, ctx) -> dict:
        gid = cells.grade_id(released)
        if cells.is_locked(released):
            if (
                cells.text(cell.get("source")) != released["source"]
                or cell["cell_type"] != released["cell_type"]
            ):
                kind = "test cell" if cells.is_test(released) else "locked cell"
                ctx.issues.append(f"{kind} {gid} was changed; the original was restored")
            return copy.deepcopy(released)
        restored = copy.deepcopy(released)
        restored["source"] = cells.text(cell.get("source"))
        if cell["cell_type"] != released["cell_type"]:
            ctx.issues.append(f"answer cell {gid} was turned into a {cell['cell_type']} cell")
        return restored

    def _add_missing(self, released: dict, present: set, done: set, out: list, ctx) -> None:
        gid = cells.grade_id(released)
        if gid in present or gid in done:
            return
        kind = "test cell" if cells.is_test(released) else "locked cell"
        if cells.is_solution(released):
            ctx.issues.append(f"answer cell {gid} is missing; it was graded as unanswered")
        else:
            ctx.issues.append(f"{kind} {gid} was deleted; it was restored")
        out.append(copy.deepcopy(released))
        done.add(gid)

    def _plain(self, cell: dict, gid: str | None, ctx) -> dict:
        if "nbgrader" in cell.get("metadata", {}):
            if gid:
                ctx.issues.append(f"an extra cell claimed grade_id {gid}; it was not scored")
            del cell["metadata"]["nbgrader"]
        return cell
