"""``autogradkit grade``: every submission graded in parallel, each in a fresh kernel.

Each submission becomes exactly one gradebook row, whatever happens to it. Submissions whose
file (and the instructor's notebook and limits) did not change since the last run keep their
row: re-running after a few late submissions only grades those.

Grading one submission has three parts, so that it can run here or on a cluster alike:
``prepare`` (here: read the notebook, copy its files into ``autograded/``, all into a ``Task``),
``evaluate`` (wherever kernels run: the task's notebook through the pipeline, into an
``Outcome`` of plain data) and ``record`` (here: the graded copy, the feedback page and the
kept result written from the outcome). ``--scheduler`` sends ``evaluate`` to a dask cluster
(``cluster.py``); without it a thread pool runs it on this machine.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path

from autogradkit import _i18n as i18n

from . import cells, course, hidden, pipeline, reference, release, report, untrusted
from .config import GradingConfig
from .context import Context
from .kernels import KernelPool, sandbox_backend
from .notebooks import UnreadableNotebook, read_notebook, write_notebook
from .progress import Progress

__all__ = [
    "GRADER_VERSION",
    "GRADE",
    "Judged",
    "Task",
    "Outcome",
    "grade_assignment",
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
    page: str  # the feedback page's file name
    digest: str
    max_score: float
    workdir: Path  # autograded/<student>/<assignment>/ here
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


def grade_assignment(cfg: GradingConfig) -> dict:
    """Grade ``cfg.submissions`` against ``cfg.assignment``; write gradebook and feedback.

    Raises:
        ValueError: there is no submission at all (the skipped entries are listed first).
        RuntimeError: no sandbox or no kernel can run here: nothing is written.
    """
    started = time.monotonic()
    assignment = course.load_assignment(cfg.course, cfg.assignment)
    _check_released(cfg, assignment)
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
    graded, lost = _grade_all(todo, assignment, cfg, backend, folder)
    rows += graded
    changed = course.changed_since(originals)
    meta = {"assignment": assignment.name, "timeout": cfg.timeout, "grader": GRADER_VERSION}
    meta["scheduler"] = cfg.scheduler or "local"  # the class report says where it ran
    json_path, csv_path = report.write_gradebook(rows, folder, {**meta, "changed": changed})
    _summarise(rows, len(todo), time.monotonic() - started, csv_path)
    for path in changed:
        print(f"autogradkit grade: error: {path} changed while grading", file=sys.stderr)
    for issue in lost:
        print(f"autogradkit grade: error: {issue}", file=sys.stderr)
    return {
        "command": "grade",
        "gradebook": str(json_path),
        "graded": len(todo),
        "reused": len(rows) - len(todo),
        "changed": changed,
        "rows": rows,
        "exit_code": 1 if changed or lost else 0,
    }


def _check_released(cfg: GradingConfig, assignment) -> None:
    """The assignment was released, and its released helper files are those of its source
    (a submission gets the released files, its hidden checks come from the source).

    Raises:
        FileNotFoundError: it was never released.
        ValueError: a released file is older than its source: release it again.
    """
    folders = [course.release_folder(cfg.course, assignment.name)]
    folders += [
        course.release_root(cfg.course, lang) / assignment.name
        for lang in i18n.LANGUAGES[1:]
        if (course.release_root(cfg.course, lang) / assignment.name).is_dir()
    ]
    stale = [
        str(path)
        for folder in folders
        for path in sorted(folder.glob("*.py"))
        if (assignment.folder / path.name).is_file()
        and release.released_text(assignment.folder / path.name) != path.read_text(encoding="utf-8")
    ]
    if stale:
        raise ValueError(
            f"{', '.join(stale)} differ from the source's: run `autogradkit release "
            f"--course {cfg.course} {assignment.name}` (and with --lang for each edition)"
        )


def _summarise(rows: list[dict], graded: int, seconds: float, csv_path: Path) -> None:
    """One line for the log: how many, how fast (a file or pipe gets no progress bar)."""
    rate = f"{graded / seconds:.2f}" if seconds > 0 else "-"
    statuses = sorted({r["status"] for r in rows})
    print(
        f"graded {graded} of {len(rows)} submissions ({len(rows) - graded} unchanged) in "
        f"{seconds:.1f} s, {rate} submissions/s; statuses: {', '.join(statuses) or 'none'}; "
        f"gradebook: {csv_path}"
    )


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
    backend = sandbox_backend(cfg.sandbox, cfg.limits())
    if backend is None:
        print(
            "autogradkit grade: warning: --sandbox none: student code runs unconfined, as "
            "you, and can read and change your files; the gradebook records it",
            file=sys.stderr,
        )
    else:
        backend.check()
    return backend


def _grade_all(todo: list, assignment, cfg: GradingConfig, backend, folder: Path):
    """Grade ``todo`` here or on the cluster; the rows, and the submissions that could not be
    graded at all (a cluster that lost them: not kept, so the next run grades them again)."""
    if not todo:
        return [], []
    bar, rows = Progress(len(todo), cfg.progress), []

    def done(task: Task, outcome: Outcome, keep: bool = True) -> None:
        rows.append(record(task, outcome, cfg, folder, keep))
        bar.update(rows[-1]["status"])

    try:
        if cfg.scheduler is None:
            _grade_here(todo, assignment, cfg, backend, folder, done)
            return rows, []
        from .cluster import grade_on_cluster  # dask is needed (and imported) only here

        def start() -> tuple[dict, Iterable[Task]]:  # the references stay in this process
            with KernelPool(1, cfg.memory_limit_mb, sandbox=backend, limits=cfg.limits()) as pool:
                pool.check()
                judged = _references(assignment, {s.notebook for s in todo}, cfg, pool, folder)
            return judged, (prepare(sub, assignment, cfg, pack=True) for sub in todo)

        return rows, grade_on_cluster(cfg, start, done)
    finally:
        bar.close()


def _grade_here(todo: list, assignment, cfg: GradingConfig, backend, folder: Path, done) -> None:
    """Grade ``todo`` on ``cfg.jobs`` threads, each driving one kernel at a time."""
    cpu = threading.Semaphore(cfg.jobs)  # cfg.jobs submissions compute at a time...
    size = min(cfg.jobs, len(todo))
    with KernelPool(size, cfg.memory_limit_mb, sandbox=backend, limits=cfg.limits()) as pool:
        pool.check()  # no kernel at all: one clear error, not a gradebook of zeros
        judged = _references(assignment, {sub.notebook for sub in todo}, cfg, pool, folder)

        def grade_one(sub) -> tuple[Task, Outcome]:
            task = prepare(sub, assignment, cfg)
            return task, evaluate(task, judged, cfg, pool, cpu, task.workdir)

        # ...and as many more may sit in a slow cell (a loop waiting for its timeout)
        with ThreadPoolExecutor(2 * cfg.jobs, thread_name_prefix="grade") as workers:
            for future in as_completed([workers.submit(grade_one, sub) for sub in todo]):
                done(*future.result())  # a re-run after a kill resumes from what is kept


def _references(assignment, notebooks: set, cfg: GradingConfig, pool, folder: Path) -> dict:
    """For each notebook: fresh seeds for its test cells, and what the instructor's solution's
    checks see with them (``reference.py``). Raises ``RuntimeError`` if the solution fails."""
    judged = {}
    for name in sorted(n for n in notebooks if n in assignment.sources):
        seeds = reference.draw_seeds(assignment.sources[name])
        found = reference.run_reference(assignment, name, cfg, pool, seeds, folder)
        source, student = assignment.sources[name], assignment.students[name]
        catalogs = {lang: i18n.catalog(lang, assignment.folder) for lang in _languages(assignment)}
        judged[name] = Judged(
            source, student, seeds, found, catalogs, hidden.hidden_code(assignment.folder)
        )
    return judged


def _languages(assignment) -> list[str]:
    """The languages the assignment is translated into (files ``*.<language>.po`` or ``.md``
    in its folder); English always."""
    names = [p.name for p in assignment.folder.iterdir()]
    translated = [lang for lang in i18n.LANGUAGES if any(f".{lang}." in n for n in names)]
    return ["en", *(lang for lang in translated if lang != "en")]


def _digest(sub, assignment, cfg: GradingConfig) -> str:
    limits = f"{cfg.timeout}/{cfg.total_timeout}/{cfg.memory_limit_mb}/{cfg.max_output_chars}"
    limits += f"/{cfg.sandbox}/{cfg.disk_limit_mb}/{cfg.max_processes}"
    extra = (assignment.digests.get(sub.notebook, ""), limits, GRADER_VERSION, *sub.clash)
    return course.digest(sub.path, *extra)


def prepare(sub, assignment, cfg: GradingConfig, pack: bool = False) -> Task:
    """The task for ``sub``: its notebook read and its files copied into ``autograded/`` (and,
    with ``pack``, read back into the task to travel). Never raises: a failure is the task's."""
    source = assignment.sources.get(sub.notebook, {"cells": []})
    task = Task(
        student=sub.student,
        assignment=assignment.name,
        notebook=sub.notebook,
        label=str(sub.path or Path(sub.notebook)),
        page=f"{sub.notebook or Path(sub.path).stem}.html",
        digest=_digest(sub, assignment, cfg),
        max_score=sum(cells.points(c) for c in source["cells"] if cells.is_grade(c)),
        workdir=Path(cfg.course) / "autograded" / sub.student / assignment.name,
    )
    try:
        task.failure = _read(sub, assignment, task)
        if task.failure is None:
            _copy(sub, assignment, cfg, task)
            task.files = _pack(task.workdir) if pack else {}
    except Exception as error:  # a grader bug on one submission must not stop the class
        task.failure = ("error", f"the grader failed: {type(error).__name__}: {error}")
    return task


def _read(sub, assignment, task: Task) -> tuple[str, str] | None:
    """Read the submission into ``task.nb``; why there is nothing to run, or None."""
    if sub.path is None:
        return ("missing", f"{sub.notebook}.ipynb was not handed in")
    if sub.clash:
        files = " and ".join(sub.clash)
        return ("error", f"{files} are both {sub.student}'s {sub.notebook}: keep one, grade again")
    linked = [p for p in (sub.folder, sub.folder and sub.folder.parent) if p and p.is_symlink()]
    if linked:  # another student's folder, or the course's own source/
        return ("unreadable", f"{linked[0].name} is a symlink: it was not followed")
    if not sub.notebook:
        names = ", ".join(f"<student>_{n}.ipynb" for n in sorted(assignment.sources))
        return ("unmatched", f"{sub.path.name}: name the file like {names}")
    try:
        task.nb = read_notebook(sub.path)
    except UnreadableNotebook as error:
        return ("unreadable", f"{sub.path.name} is {error}")
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
    page = Path(cfg.course) / "feedback" / task.student / task.assignment / task.page
    writes = [
        ("graded notebook", task.workdir / f"{task.notebook}.ipynb", outcome.graded),
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
            print(f"autogradkit grade: error: {task.label}: not kept: {error}", file=sys.stderr)
    return row


def _write(path: Path, content: dict | str) -> None:
    if isinstance(content, str):
        report.write_atomic(path, content)
    else:
        write_notebook(content, path)


def lost(task: Task, cfg: GradingConfig, reason: str) -> Outcome:
    """The outcome of a task that no worker could grade: an ``error`` row saying why."""
    return evaluate(replace(task, failure=("error", reason)), {}, cfg, None, None, task.workdir)
