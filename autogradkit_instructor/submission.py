"""One submission graded, in three parts, so that it can run here or on a cluster alike.

``prepare`` (here: read the notebook, copy its files into ``autograded/``, all into a ``Task``),
``evaluate`` (wherever kernels run: the task's notebook through the pipeline, into an
``Outcome`` of plain data) and ``record`` (here: the graded copy, the feedback page and the
kept result written from the outcome); ``lost`` is the outcome of a task no kernel could
grade. ``grade.py`` runs them for a whole class on a thread pool, ``cluster.py`` sends
``evaluate`` to a dask cluster: both import this file, neither imports the other.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from autogradkit import _i18n as i18n
from autogradkit._i18n import N_

from . import cells, course, pipeline, report, untrusted
from .config import GradingConfig
from .context import Context
from .notebooks import UnreadableNotebook, read_notebook, write_notebook

__all__ = [
    "GRADER_VERSION",
    "GRADE",
    "Judged",
    "Task",
    "Outcome",
    "digest",
    "prepare",
    "evaluate",
    "record",
    "lost",
]

GRADER_VERSION = "1"
GRADE = pipeline.grade()


@dataclass(frozen=True)
class Judged:
    """One notebook of the assignment as every submission of it is judged: the instructor's
    version, the student version, this run's seeds and the references they gave, the
    catalogs of the languages it is translated into (the feedback's words, by language), and
    the hidden checks' code, sent to a kernel only as their test cell runs (``hidden.py``)."""

    source: dict
    student: dict
    seeds: dict
    references: dict
    catalogs: dict = field(default_factory=dict)
    hidden: dict = field(default_factory=dict)  # module -> its hidden checks' code


@dataclass
class Task:
    """One submission as data: all that grading it needs, nothing that points into the course.

    ``failure`` (status, issue) is set when there is nothing to run (missing, unmatched,
    unreadable). ``files`` holds the working folder's files (``{relative path: bytes}``) when
    the task travels to another machine; a local task's files are already in ``workdir``.
    """

    student: str
    assignment: str
    notebook: str
    label: str  # the submission's path, as the row shows it
    page: str  # the feedback page: feedback/<its path here>
    digest: str
    max_score: float
    workdir: Path  # the kernel's files: autograded/<student>/<assignment>/[<notebook>/] here
    graded: Path  # where the graded copy goes: autograded/<student>/<assignment>/<notebook>.ipynb
    nb: dict | None = None
    failure: tuple[str, str] | None = None
    refused: list[str] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)


@dataclass
class Outcome:
    """What grading a task produced, as data: the row, the feedback page, the graded notebook."""

    row: dict
    feedback: str
    graded: dict | None


def digest(sub, assignment, cfg: GradingConfig) -> str:
    """What a kept row is valid for: everything it was graded with, the submission's file and
    every other file of the student's folder, the instructor's notebook and every file of the
    assignment's source and release folders, the limits and the grader's version (a row whose
    digest still matches is not graded again)."""
    limits = f"{cfg.timeout}/{cfg.total_timeout}/{cfg.memory_limit_mb}/{cfg.max_output_chars}"
    limits += f"/{cfg.sandbox}/{cfg.disk_limit_mb}/{cfg.max_processes}"
    notebook = assignment.digests.get(sub.notebook, "")
    own = course.folder_identity(sub.folder)
    extra = (notebook, assignment.files, own, limits, GRADER_VERSION, *sub.clash)
    return course.digest(sub.path, *extra)


def _clash(sub) -> tuple[str, ...]:
    """What tells ``sub``'s folder apart (a folder of its own, the same on every system): a
    clash's own file, or nothing."""
    return (*sub.clash, untrusted.name(sub.path.name)) if sub.clash and sub.path else ()


def page_of(sub, assignment: str) -> str:
    """Where ``sub``'s feedback page goes, inside ``feedback/``."""
    return course.page_path(sub.student, assignment, sub.notebook, sub.path, _clash(sub))


def prepare(sub, assignment, cfg: GradingConfig, pack: bool = False) -> Task:
    """The task for ``sub``: its notebook read and its files copied into ``autograded/`` (and,
    with ``pack``, read back into the task to travel). Never raises: a failure is the task's."""
    source = assignment.sources.get(sub.notebook, {"cells": []})
    clash = _clash(sub)
    own = course.student_folder(sub.student, clash)
    folder = Path(cfg.course) / "autograded" / own / assignment.name
    several = len(assignment.sources) > 1 and sub.notebook  # a kernel folder per notebook
    task = Task(
        student=sub.student,
        assignment=assignment.name,
        notebook=sub.notebook,
        label=str(sub.path or Path(sub.notebook)),
        page=page_of(sub, assignment.name),
        digest=digest(sub, assignment, cfg),
        max_score=sum(cells.points(c) for c in source["cells"] if cells.is_grade(c)),
        workdir=folder / sub.notebook if several else folder,
        graded=folder / f"{sub.notebook}.ipynb",
    )
    try:
        task.graded.unlink(missing_ok=True)  # no graded copy of an earlier run outlives its row
        task.failure = _read(sub, assignment, task)
        if task.failure is None:
            _copy(sub, assignment, cfg, task)
            task.files = _pack(task.workdir) if pack else {}
    except Exception as error:  # a grader bug on one submission must not stop the class
        failed = N_("the grader failed: {kind}: {error}")
        task.failure = ("error", failed.format(kind=type(error).__name__, error=error))
    return task


def _read(sub, assignment, task: Task) -> tuple[str, str] | None:
    """Read the submission into ``task.nb``; why there is nothing to run, or None."""
    if sub.path is None:
        return ("missing", N_("{file} was not handed in").format(file=f"{sub.notebook}.ipynb"))
    if sub.clash and sub.student in sub.clash:  # two names, one identity
        one = N_(
            "{names} name one student once case and accents are ignored: "
            "rename or keep one, grade again"
        )
        return ("error", one.format(names=" / ".join(sub.clash)))
    if sub.clash:
        both = N_("{files} are both {student}'s {notebook}: keep one, grade again")
        handed = " / ".join(sub.clash)
        return ("error", both.format(files=handed, student=sub.student, notebook=sub.notebook))
    linked = [p for p in (sub.folder, sub.folder and sub.folder.parent) if p and p.is_symlink()]
    if linked:  # another student's folder, or the course's own source/
        symlink = N_("{name} is a symlink: it was not followed")
        return ("unreadable", symlink.format(name=linked[0].name))
    if not sub.notebook:
        names = ", ".join(f"<student>_{n}.ipynb" for n in sorted(assignment.sources))
        return (
            "unmatched",
            N_("{file}: name the file like {names}").format(file=sub.path.name, names=names),
        )
    try:  # a hard link may be another student's file, or the instructor's
        task.nb = read_notebook(sub.path, own=True)
    except UnreadableNotebook as error:
        return ("unreadable", N_("{file} is {why}").format(file=sub.path.name, why=error))
    return None


def _copy(sub, assignment, cfg: GradingConfig, task: Task) -> None:
    """A fresh working folder, made of an allow-list: the student's own files, then the
    released files of the notebook's edition over them (``course.working_folder``)."""
    language = i18n.notebook_language(task.nb)
    released = course.release_folder(cfg.course, assignment.name, language)
    limit = cfg.disk_limit_mb * 2**20
    task.refused = course.working_folder(released, sub.folder, task.workdir, limit)


def _pack(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (regular files only: ``copy_files`` made them)."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


def evaluate(task: Task, judged: dict, cfg: GradingConfig, pool, cpu, workdir: Path) -> Outcome:
    """Grade ``task`` with kernels from ``pool``, its files in ``workdir``; writes nothing but
    what the kernels' sandboxes do. Never raises: any failure becomes the row's status.

    ``judged`` maps a notebook to its ``Judged``; without an entry every test cell is judged by
    whether it raised. ``cpu`` is a semaphore of computing slots (or None).
    """
    ctx = Context(cfg, Path(task.label), workdir, kernels=pool, cpu=cpu)
    found = judged.get(task.notebook)
    if found is not None:
        ctx.seeds, ctx.references = found.seeds, found.references
        ctx.hidden_checks = found.hidden
    graded = None
    if cpu is not None:
        cpu.acquire()
    started = time.monotonic()
    try:
        graded = _run(task, found, ctx)
    except Exception as error:  # a grader bug on one submission must not stop the class
        ctx.fail("error", f"the grader failed: {type(error).__name__}: {error}")
    finally:
        if cpu is not None:
            cpu.release()
    row = report.make_row(
        ctx,
        student=task.student,
        assignment=task.assignment,
        notebook=task.notebook,
        seconds=time.monotonic() - started,
        digest=task.digest,
        max_score=task.max_score,
    )
    return Outcome(row, report.feedback_html(row, ctx), graded)


def _run(task: Task, found: Judged | None, ctx: Context) -> dict | None:
    """The graded notebook, or None when there was nothing to run."""
    if task.failure is not None:
        ctx.fail(*task.failure)
        return None
    for refused in task.refused:
        ctx.fail("bad_files", refused)
    ctx.source, ctx.student = found.source, found.student
    ctx.tr = found.catalogs.get(i18n.notebook_language(task.nb), i18n.ENGLISH)
    return GRADE(task.nb, ctx)


def record(task: Task, outcome: Outcome, cfg: GradingConfig, folder: Path, keep: bool = True):
    """Write what ``outcome`` holds: the graded copy, the feedback page, the kept result (not
    with ``keep=False``); returns the row. Never raises: a file that cannot be written is the
    row's status, and the other submissions are graded and kept as usual."""
    row = outcome.row
    page = Path(cfg.course) / "feedback" / task.page
    writes = [
        ("graded notebook", task.graded, outcome.graded),
        ("feedback page", page, outcome.feedback),
    ]
    for what, path, content in writes:
        if content is None:
            continue
        try:
            _write(path, content)
        except Exception as error:  # e.g. a folder in the page's place: this row only
            row["issues"].append(untrusted.text(f"the {what} could not be written: {error}"))
            row["status"] = "error" if row["status"] == "ok" else row["status"]
    if keep:
        try:
            report.write_result(folder, row)  # a re-run after a kill resumes here
        except Exception as error:  # not kept: the next run grades it again
            note = untrusted.text(f"{task.label}: not kept: {error}", limit=2000)
            print(f"autogradkit grade: error: {note}", file=sys.stderr)
    return row


def _write(path: Path, content: dict | str) -> None:
    if isinstance(content, str):
        report.write_atomic(path, content)
    else:
        write_notebook(content, path)


def lost(task: Task, cfg: GradingConfig, reason: str) -> Outcome:
    """The outcome of a task that no worker could grade: an ``error`` row saying why."""
    return evaluate(replace(task, failure=("error", reason)), {}, cfg, None, None, task.workdir)
