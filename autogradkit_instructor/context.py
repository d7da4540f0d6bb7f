"""The state one notebook carries through a pipeline: results, issues and status."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autogradkit._i18n import ENGLISH, Catalog

from .config import GradingConfig

__all__ = ["STATUSES", "CellResult", "Context"]

STATUSES = (
    "ok",
    "timeout",
    "kernel_died",
    "unreadable",
    "missing",
    "unmatched",
    "bad_files",
    "error",
)


@dataclass
class CellResult:
    """The outcome of one graded cell.

    ``status`` is ``passed``, ``partial``, ``failed``, ``not_run`` or ``manual`` (a written
    answer a person grades). ``lines`` are the ✓/✗ lines the checks printed, ``error`` is
    ``"<ExceptionName>: <message>"`` of a failing cell. ``hidden`` says the cell ran hidden
    tests (its feedback then shows the verdict and ``title`` only, the exercise's heading).
    """

    grade_id: str
    max_points: float
    points: float = 0.0
    status: str = "not_run"
    lines: list[str] = field(default_factory=list)
    error: str = ""
    hidden: bool = False
    title: str = ""


@dataclass
class Context:
    """Everything the steps share while one notebook goes through a pipeline.

    Attributes:
        cfg: the run's configuration.
        path: the notebook file being processed.
        workdir: the kernel's working directory (the notebook's folder).
        source: the instructor version (with solutions and hidden tests), when there is one.
        student: the released student version of ``source`` (for tamper checks).
        kernels: where ``Execute`` gets its kernel (a ``KernelPool``).
        status: ``ok`` until something worse happens (see ``STATUSES``).
        issues: notes for the instructor and the student, one sentence each.
        results: one ``CellResult`` per graded cell, by grade_id.
        hidden: the hidden-test code that was injected (feedback must never show it).
        review: tampering the guard found and undid (hooks, patches): the row needs a person.
        unguarded: test cells before which the guard sent no report of its own shape: an
            ``assert``-style cell among them (decided in the kernel) scores nothing.
        judged_here: ``assert`` test cells the grader judged itself, on the values their
            kernel sent as data (``asserts.py``): no guard report decides them.
        done: names of the steps that have run, in order.
        cpu: a semaphore of "computing" slots (one per core) held while this submission runs;
            a slow cell gives its slot up so that a loop does not hold a core's worth of work.
        seeds: the seed each test cell's checks draw their inputs from (by grade_id); empty
            outside ``grade``, where checks use their fixed practice seeds.
        references: what each test cell's checks saw on the instructor's solution with the
            same seeds (by grade_id); a test cell listed here is judged from its records.
        hidden_checks: the code of the hidden checks by module (``{"checks": "..."}``), sent
            to the kernel just before the test cell that calls them (``hidden.py``).
        tr: the catalog of the notebook's language (its metadata says which), with the
            instructor's translations of the checks' texts: the words of the feedback.
    """

    cfg: GradingConfig
    path: Path
    workdir: Path
    source: dict | None = None
    student: dict | None = None
    kernels: Any = None
    status: str = "ok"
    issues: list[str] = field(default_factory=list)
    results: dict[str, CellResult] = field(default_factory=dict)
    hidden: list[str] = field(default_factory=list)
    review: list[str] = field(default_factory=list)
    unguarded: set[str] = field(default_factory=set)
    judged_here: set[str] = field(default_factory=set)
    done: list[str] = field(default_factory=list)
    cpu: Any = None
    seeds: dict[str, int] = field(default_factory=dict)
    references: dict[str, list] = field(default_factory=dict)
    hidden_checks: dict[str, str] = field(default_factory=dict)
    tr: Catalog = ENGLISH

    def fail(self, status: str, issue: str) -> None:
        """Record an issue; the first abnormal status wins (a timeout stays a timeout)."""
        assert status in STATUSES, status
        if self.status == "ok":
            self.status = status
        self.issues.append(issue)

    @property
    def score(self) -> float:
        return sum(r.points for r in self.results.values())

    @property
    def max_score(self) -> float:
        return sum(r.max_points for r in self.results.values())
