"""``GradingConfig``: every choice the command line makes, frozen before any work starts."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .sandbox import Limits

__all__ = ["default_jobs", "GradingConfig"]


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class GradingConfig:
    """What to do and with which limits; built by ``cli.main`` and read by every step.

    Attributes:
        command: ``"build"``, ``"release"``, ``"validate"``, ``"grade"``, ``"export"``...
        course: the course folder with ``source/``, ``release/``, ``autograded/``...
        assignments: assignments to build or release (empty: all of them).
        assignment: the assignment to grade (or export).
        submissions: folder of submissions (nbgrader layout or flat ``*.ipynb``).
        notebook: the notebook to validate.
        jobs: submissions graded at the same time (one kernel each).
        timeout: seconds one cell may run before it is interrupted.
        total_timeout: seconds all cells of one submission may use together.
        interrupt_grace: seconds a kernel gets to obey an interrupt before it is killed.
        memory_limit_mb: memory cap of each grading kernel: its whole sandbox when a cgroup
            can be made, each process otherwise (0: none; forked kernels only).
        sandbox: ``bwrap`` (default), ``docker``, ``podman`` or ``none`` (see sandbox.py);
            ``validate`` also takes ``auto``: bubblewrap where it works, else none.
        disk_limit_mb: size of each sandbox's private working directory.
        max_processes: processes and threads one sandbox may run (needs a cgroup).
        max_output_chars: output kept per cell; the rest is cut with a note.
        force: regrade submissions that were already graded and did not change.
        report: where to write the JSON report (grade: defaults to the gradebook).
        progress: draw a progress bar (None: only when stderr is a terminal).
        scheduler: a dask scheduler's address (``tcp://HOST:PORT``): grade each submission as
            one task on that cluster (``cluster.py``); None grades on this machine.
        format: what ``export`` writes: ``canvas``, ``moodle`` or ``csv`` (``export.py``).
        per_exercise: ``export`` writes one column per test cell, not one per notebook.
        output: where ``export`` and ``report`` write (default: beside the gradebook).
        roster: a CSV of ``student,name,id,email`` that ``export`` takes names and ids from.
        language: the edition ``release`` writes and ``translate`` works on (``en``: the
            source's own; ``zh-CN``: into ``release/zh-CN``, see ``translate.py``); the
            language of ``report``'s page (None: the one most submissions are written in).
        anonymous: ``report`` names no student (a page to show the class).
        check: ``translate`` only says what is left to translate (exit code 1 if anything).
        tests: where ``check-course`` finds the shortcut tests (``test_exercises_NN.py``).

    Example:
        >>> GradingConfig(command="grade", timeout=5).total_timeout
        50.0
    """

    command: str
    course: Path = Path("notebooks")
    assignments: tuple[str, ...] = ()
    assignment: str | None = None
    submissions: Path | None = None
    notebook: Path | None = None
    jobs: int = field(default_factory=default_jobs)
    timeout: float = 30.0
    total_timeout: float | None = None
    interrupt_grace: float = 3.0
    memory_limit_mb: int = 2048
    max_output_chars: int = 100_000
    sandbox: str = "bwrap"
    disk_limit_mb: int = 256
    max_processes: int = 64
    force: bool = False
    report: Path | None = None
    progress: bool | None = None
    scheduler: str | None = None
    format: str = "csv"
    per_exercise: bool = False
    output: Path | None = None
    roster: Path | None = None
    language: str | None = "en"
    check: bool = False
    tests: Path | None = None
    anonymous: bool = False

    def limits(self):
        """What one sandbox may use, from ``memory_limit_mb``, ``max_processes`` and
        ``disk_limit_mb``."""
        return Limits(self.memory_limit_mb, self.max_processes, self.disk_limit_mb)

    def __post_init__(self) -> None:
        if self.timeout <= 0:
            raise ValueError(f"--timeout must be positive, got {self.timeout}")
        if self.jobs < 1:
            raise ValueError(f"-j must be at least 1, got {self.jobs}")
        if self.scheduler is not None and not self.scheduler.strip():
            raise ValueError("--scheduler needs an address, e.g. tcp://10.0.0.5:8786")
        if self.total_timeout is None:  # frozen: set the derived default once, here
            object.__setattr__(self, "total_timeout", 10.0 * self.timeout)
