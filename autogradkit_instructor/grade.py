"""``autogradkit grade``: every submission graded in parallel, each in a fresh kernel.

Each submission becomes exactly one gradebook row, whatever happens to it. Submissions whose
file (and the instructor's notebook and limits) did not change since the last run keep their
row: re-running after a few late submissions only grades those.

Grading one submission has three parts (``submission.py``: ``prepare``, ``evaluate``,
``record``), so that it can run here or on a cluster alike: ``--scheduler`` sends ``evaluate``
to a dask cluster (``cluster.py``); without it a thread pool runs it on this machine.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from autogradkit import _i18n as i18n

from . import asserts, course, hidden, reference, release, report, session, untrusted
from .config import GradingConfig
from .kernels import KernelPool, sandbox_backend
from .progress import Progress
from .submission import (
    GRADER_VERSION,
    Judged,
    Outcome,
    Task,
    digest,
    evaluate,
    page_of,
    prepare,
    record,
)

__all__ = ["grade_assignment"]


def grade_assignment(cfg: GradingConfig) -> dict:
    """Grade ``cfg.submissions`` against ``cfg.assignment``; write gradebook and feedback.

    Raises:
        ValueError: there is no submission at all (the skipped entries are listed first).
        RuntimeError: no sandbox or no kernel can run here, or another run grades this
            assignment now: nothing is written.
    """
    started = time.monotonic()
    assignment = course.load_assignment(cfg.course, cfg.assignment)
    folder = Path(cfg.course) / "grades" / assignment.name
    with _the_only_run(assignment.folder):
        return _grade(cfg, assignment, folder, started)


@contextlib.contextmanager
def _the_only_run(source: Path):
    """Hold a lock on the assignment's source folder while grading it (no file is made for
    it): a second ``grade`` of it stops at once, as two side by side would empty each
    other's kernel folders. The system releases it when this process ends, however."""
    handle = os.open(source, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(handle)
        raise RuntimeError(
            f"{source.name} is being graded by another `autogradkit grade` now: wait for it "
            "to finish (it keeps every row it finishes), then run grade again"
        ) from None
    try:
        yield
    finally:
        os.close(handle)  # and the lock with it


def _grade(cfg: GradingConfig, assignment, folder: Path, started: float) -> dict:
    _check_released(cfg, assignment)
    submissions = _find(cfg, assignment)
    backend = _sandbox(cfg)
    originals = course.fingerprint([assignment.folder, Path(cfg.submissions)])
    rows, todo = [], []
    for sub in submissions:  # a result of an earlier (maybe killed) run is kept if still valid
        old = report.read_result(folder, sub.student, sub.notebook)
        if not cfg.force and _still_valid(old, digest(sub, assignment, cfg)):
            rows.append(old)
        else:
            todo.append(sub)
    graded, lost = _grade_all(todo, assignment, cfg, backend, folder)
    rows += graded
    changed = course.changed_since(originals)
    meta = {"assignment": assignment.name, "timeout": cfg.timeout, "grader": GRADER_VERSION}
    meta["scheduler"] = cfg.scheduler or "local"  # the class report says where it ran
    json_path, csv_path = report.write_gradebook(rows, folder, {**meta, "changed": changed})
    pages = {page_of(sub, assignment.name) for sub in submissions}
    for stale in _remove_other_pages(Path(cfg.course) / "feedback", assignment.name, pages):
        _say(f"removed feedback/{stale}: no row of the gradebook has it (an earlier run's page)")
    _summarise(rows, len(todo), time.monotonic() - started, csv_path)
    for path in changed:
        _say(f"error: {path} changed while grading")
    for issue in lost:
        _say(f"error: {issue}")
    return {
        "command": "grade",
        "gradebook": str(json_path),
        "graded": len(todo),
        "reused": len(rows) - len(todo),
        "changed": changed,
        "rows": rows,
        "exit_code": 1 if changed or lost else 0,
    }


def _remove_other_pages(feedback: Path, assignment: str, pages: set[str]) -> list[str]:
    """Remove each page of ``assignment`` in ``feedback`` (``<folder>/<assignment>/*.html``)
    that is not one of ``pages``, the rows' (a student's folder named by an earlier scheme,
    a submission taken back), and the folders that leaves empty; the pages removed. Nothing
    else there is touched, and no symlink is followed."""
    removed = []
    students = sorted(feedback.iterdir()) if feedback.is_dir() else []
    for student in (s for s in students if s.is_dir() and not s.is_symlink()):
        folder = student / assignment
        if not folder.is_dir() or folder.is_symlink():
            continue
        for page in sorted(folder.glob("*.html")):
            where = f"{student.name}/{assignment}/{page.name}"
            if where not in pages and page.is_file() and not page.is_symlink():
                page.unlink()
                removed.append(where)
        for empty in (folder, student):
            if not any(empty.iterdir()):
                empty.rmdir()
    return removed


def _still_valid(old: dict | None, now: str) -> bool:
    """Whether a kept row stands for this run: graded with the same files and limits, and
    finished (a row the grader could not finish, status ``error``, is graded again: a busy
    machine, a full disk or a page in the way is no verdict on the submission)."""
    return bool(old) and old.get("digest") == now and old.get("status") != "error"


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


def _say(message: str) -> None:
    """One line on stderr; a name in it is shown as text (``untrusted.text``): the escape
    sequence a student put in a folder's name is written out, never obeyed by the terminal."""
    print(f"autogradkit grade: {untrusted.text(message, limit=2000)}", file=sys.stderr)


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
        _say(f"skipped {entry}")
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
            notebooks = {s.notebook for s in todo}
            limits, expected = cfg.limits(), len(notebooks)  # one kernel per reference run
            with KernelPool(
                1, cfg.memory_limit_mb, sandbox=backend, limits=limits, expected=expected
            ) as pool:
                pool.check()
                judged = _references(assignment, notebooks, cfg, pool, folder)
            return judged, (prepare(sub, assignment, cfg, pack=True) for sub in todo)

        return rows, grade_on_cluster(cfg, start, done)
    finally:
        bar.close()


def _grade_here(todo: list, assignment, cfg: GradingConfig, backend, folder: Path, done) -> None:
    """Grade ``todo`` on ``cfg.jobs`` threads, each driving one kernel at a time."""
    cpu = threading.Semaphore(cfg.jobs)  # cfg.jobs submissions compute at a time...
    size, notebooks = min(cfg.jobs, len(todo)), {sub.notebook for sub in todo}
    expected = len(notebooks) + len(todo)  # a kernel per reference run and per submission
    limits = cfg.limits()
    with KernelPool(
        size, cfg.memory_limit_mb, sandbox=backend, limits=limits, expected=expected
    ) as pool:
        pool.check()  # no kernel at all: one clear error, not a gradebook of zeros
        judged = _references(assignment, notebooks, cfg, pool, folder)

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
        imported = session.imported_names(source)
        for gid, why in asserts.kernel_judged(source, imported, found).items():
            _say(
                f"warning: {name}: test cell {gid} is judged by the student's kernel, which "
                f"a submission can patch ({why}); see 'Assert cells' in the instructor guide"
            )
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
