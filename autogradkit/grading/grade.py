"""``autogradkit grade``: every submission graded in parallel, each in a fresh kernel.

Each submission becomes exactly one gradebook row, whatever happens to it. Submissions whose
file (and the instructor's notebook and limits) did not change since the last run keep their
row: re-running after a few late submissions only grades those.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from . import cells, course, pipeline, reference, report, sandbox
from .config import GradingConfig
from .context import Context
from .kernels import KernelPool
from .notebooks import UnreadableNotebook, read_notebook, write_notebook
from .progress import Progress

GRADER_VERSION = "1"
GRADE = pipeline.grade()


def grade_assignment(cfg: GradingConfig) -> dict:
    """Grade ``cfg.submissions`` against ``cfg.assignment``; write gradebook and feedback.

    Raises:
        ValueError: there is no submission at all (the skipped entries are listed first).
        RuntimeError: no sandbox or no kernel can run here: nothing is written.
    """
    assignment = course.load_assignment(cfg.course, cfg.assignment)
    submissions = _find(cfg, assignment)
    backend = _sandbox(cfg)
    folder = Path(cfg.course) / "grades" / assignment.name
    originals = course.fingerprint([assignment.folder, Path(cfg.submissions)])
    rows, todo = [], []
    for sub in submissions:  # a result of an earlier (maybe killed) run is kept if still valid
        old = report.read_result(folder, sub.student, sub.notebook)
        if not cfg.force and old and old["digest"] == _digest(sub, assignment, cfg):
            rows.append(old)
        else:
            todo.append(sub)
    rows += _grade_all(todo, assignment, cfg, backend, folder)
    changed = course.changed_since(originals)
    meta = {"assignment": assignment.name, "timeout": cfg.timeout, "grader": GRADER_VERSION}
    json_path, csv_path = report.write_gradebook(rows, folder, {**meta, "changed": changed})
    statuses = sorted({r["status"] for r in rows})
    print(
        f"graded {len(todo)} of {len(rows)} submissions ({len(rows) - len(todo)} unchanged); "
        f"statuses: {', '.join(statuses) or 'none'}; gradebook: {csv_path}"
    )
    for path in changed:
        print(f"autogradkit grade: error: {path} changed while grading", file=sys.stderr)
    return {
        "command": "grade",
        "gradebook": str(json_path),
        "graded": len(todo),
        "reused": len(rows) - len(todo),
        "changed": changed,
        "rows": rows,
        "exit_code": 1 if changed else 0,
    }


def _find(cfg: GradingConfig, assignment) -> list:
    """The submissions to grade; says which entries of the folder were skipped, and why."""
    submissions = course.find_submissions(cfg.submissions, assignment)
    for entry in course.skipped_entries(cfg.submissions, assignment):
        print(f"autogradkit grade: skipped {entry}", file=sys.stderr)
    if not submissions:
        raise ValueError(
            f"no submissions of '{assignment.name}' in {cfg.submissions}: expected "
            f"<student>/{assignment.name}/<notebook>.ipynb folders or <student>.ipynb files"
        )
    return submissions


def _sandbox(cfg: GradingConfig):
    """The sandbox backend ``cfg`` asks for, checked to work here; None for ``none``.

    Raises:
        SandboxUnavailable: one sentence saying what to install, or to pass ``--sandbox none``.
    """
    backend = sandbox.backend(cfg.sandbox, cfg.limits())
    if backend is None:
        print(
            "autogradkit grade: warning: --sandbox none: student code runs unconfined, as "
            "you, and can read and change your files; the gradebook records it",
            file=sys.stderr,
        )
    else:
        backend.check()
    return backend


def _grade_all(todo: list, assignment, cfg: GradingConfig, backend, folder: Path) -> list[dict]:
    """Grade ``todo`` on ``cfg.jobs`` threads, each driving one kernel at a time."""
    if not todo:
        return []
    bar, rows = Progress(len(todo), cfg.progress), []
    cpu = threading.Semaphore(cfg.jobs)  # cfg.jobs submissions compute at a time...
    size = min(cfg.jobs, len(todo))
    with KernelPool(size, cfg.memory_limit_mb, sandbox=backend, limits=cfg.limits()) as pool:
        pool.check()  # no kernel at all: one clear error, not a gradebook of zeros
        judged = _references(assignment, {sub.notebook for sub in todo}, cfg, pool, folder)
        # ...and as many more may sit in a slow cell (a loop waiting for its timeout)
        with ThreadPoolExecutor(2 * cfg.jobs, thread_name_prefix="grade") as workers:
            futures = [
                workers.submit(grade_one, sub, assignment, cfg, pool, cpu, judged) for sub in todo
            ]
            for future in as_completed(futures):
                rows.append(future.result())
                report.write_result(folder, rows[-1])  # a re-run after a kill resumes here
                bar.update(rows[-1]["status"])
    bar.close()
    return rows


def _references(assignment, notebooks: set, cfg: GradingConfig, pool, folder: Path) -> dict:
    """For each notebook: fresh seeds for its test cells, and what the instructor's solution's
    checks see with them (``reference.py``). Raises ``RuntimeError`` if the solution fails."""
    judged = {}
    for name in sorted(n for n in notebooks if n in assignment.sources):
        seeds = reference.draw_seeds(assignment.sources[name])
        found = reference.run_reference(assignment, name, cfg, pool, seeds, folder)
        judged[name] = (seeds, found)
    return judged


def _digest(sub, assignment, cfg: GradingConfig) -> str:
    limits = f"{cfg.timeout}/{cfg.total_timeout}/{cfg.memory_limit_mb}/{cfg.max_output_chars}"
    limits += f"/{cfg.sandbox}/{cfg.disk_limit_mb}/{cfg.max_processes}"
    return course.digest(sub.path, assignment.digests.get(sub.notebook, ""), limits, GRADER_VERSION)


def grade_one(sub, assignment, cfg: GradingConfig, pool: KernelPool, cpu=None, judged=None) -> dict:
    """Grade one submission; never raises: any failure becomes the row's status.

    ``judged`` maps a notebook to its test cells' seeds and reference records; without it
    every test cell is judged by whether it raised.
    """
    workdir = Path(cfg.course) / "autograded" / sub.student / assignment.name
    ctx = Context(cfg, sub.path or Path(sub.notebook), workdir, kernels=pool, cpu=cpu)
    ctx.seeds, ctx.references = (judged or {}).get(sub.notebook, ({}, {}))
    if cpu is not None:
        cpu.acquire()
    started = time.monotonic()
    try:
        _run(sub, assignment, ctx)
    except Exception as error:  # a grader bug on one submission must not stop the class
        ctx.fail("error", f"the grader failed: {type(error).__name__}: {error}")
    finally:
        if cpu is not None:
            cpu.release()
    source = assignment.sources.get(sub.notebook, {"cells": []})
    total = sum(cells.points(c) for c in source["cells"] if cells.is_grade(c))
    row = report.make_row(
        ctx,
        student=sub.student,
        assignment=assignment.name,
        notebook=sub.notebook,
        seconds=time.monotonic() - started,
        digest=_digest(sub, assignment, cfg),
        max_score=total,
    )
    name = f"{sub.notebook or Path(sub.path).stem}.html"
    page = Path(cfg.course) / "feedback" / sub.student / assignment.name / name
    try:
        report.write_atomic(page, report.feedback_html(row, ctx))
    except OSError as error:  # e.g. a folder in the page's place: this row only
        row["issues"].append(f"the feedback page {page} could not be written: {error}")
        row["status"] = "error" if row["status"] == "ok" else row["status"]
    return row


def _run(sub, assignment, ctx: Context) -> None:
    if sub.path is None:
        return ctx.fail("missing", f"{sub.notebook}.ipynb was not handed in")
    if not sub.notebook:
        names = ", ".join(f"<student>_{n}.ipynb" for n in sorted(assignment.sources))
        return ctx.fail("unmatched", f"{sub.path.name}: name the file like {names}")
    try:
        nb = read_notebook(sub.path)
    except UnreadableNotebook as error:
        return ctx.fail("unreadable", f"{sub.path.name} is {error}")
    ctx.source = assignment.sources[sub.notebook]
    ctx.student = assignment.students[sub.notebook]
    shutil.rmtree(ctx.workdir, ignore_errors=True)  # nothing of an earlier run is reused
    ctx.workdir.mkdir(parents=True)
    instructor = assignment.folder  # its files replace the student's copies of them
    for refused in course.copy_files(
        sub.folder,
        ctx.workdir,
        ctx.cfg.disk_limit_mb * 2**20,
        skip=course.instructor_files(instructor),
        shadowed=course.shadowed_names(instructor),
    ):
        ctx.fail("bad_files", refused)
    course.copy_files(instructor, ctx.workdir, skip=course.PRACTICE_ONLY)
    graded = ctx.workdir / f"{sub.notebook}.ipynb"
    nb = GRADE(nb, ctx)
    write_notebook(nb, graded)
