"""What the checks should see: the instructor's solution, run as a submission is, same seeds.

``grade`` draws one seed per test cell for the whole run (``draw_seeds``), then runs the
instructor's notebook (solutions and hidden tests in) in a sandboxed kernel with those seeds
(``run_reference``). The records its checks emit are the references every submission's records
are judged against, in the grader's process. A test cell whose checks emit no record (an
nbgrader course's ``assert`` cells) has no reference and is judged by whether it raised.
"""

from __future__ import annotations

import copy
import hashlib
import secrets
import shutil
from pathlib import Path

from autogradkit.grading.observations import Record, records_in

from . import cells, course, files, pipeline
from .config import GradingConfig
from .context import Context
from .notebooks import write_notebook

__all__ = ["draw_seeds", "run_reference"]


def draw_seeds(source: dict) -> dict[str, int]:
    """A fresh seed for each test cell of ``source``; no submission can know them in advance."""
    secret = secrets.token_bytes(16)
    return {
        gid: int.from_bytes(hashlib.sha256(secret + gid.encode()).digest()[:8], "little")
        for gid in (cells.grade_id(c) for c in source["cells"] if cells.is_test(c))
        if gid
    }


def run_reference(
    assignment, notebook: str, cfg: GradingConfig, pool, seeds: dict[str, int], folder: Path
) -> dict[str, list[Record]]:
    """Run the instructor's ``notebook`` with ``seeds``; return each test cell's records.

    The executed copy is kept as ``folder/reference/<notebook>.ipynb`` for the instructor.

    Raises:
        RuntimeError: the solution does not pass its own checks (an authoring error: grading
            students against it would be wrong), or no kernel could run it.
    """
    workdir = folder / "reference" / notebook
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    files.copy_files(assignment.folder, workdir, skip=course.PRACTICE_ONLY)
    ctx = Context(cfg, workdir / f"{notebook}.ipynb", workdir, kernels=pool, seeds=seeds)
    nb = pipeline.reference()(copy.deepcopy(assignment.sources[notebook]), ctx)
    write_notebook(nb, folder / "reference" / f"{notebook}.ipynb")
    problems = list(ctx.issues)
    references = {}
    for cell in nb["cells"]:
        if not cells.is_test(cell):
            continue
        gid = cells.grade_id(cell)
        records, unreadable = records_in(cell)
        failed = [r.title for r in records if r.stopped]
        if any(out.get("output_type") == "error" for out in cell.get("outputs", [])):
            problems.append(f"test cell {gid} raised an error")
        problems += [f"test cell {gid}: the check '{title}' stopped early" for title in failed]
        if unreadable:
            problems.append(f"test cell {gid}: {unreadable} check records could not be read")
        if records:
            references[gid] = records
    if problems or ctx.status != "ok":
        raise RuntimeError(
            f"the instructor's solution of {assignment.name}/{notebook} does not pass its own "
            f"tests ({'; '.join(problems) or ctx.status}); see {folder / 'reference'}"
        )
    return references
