"""Run pytest, and fail loudly on what would otherwise pass in silence.

- "No tests collected" (pytest's exit 5) is an error: an empty selection never passes.
- Every skip is listed at the end, grouped by reason. With ``--allowed-skips FILE`` (as
  ``.ci/run`` asks), a skip whose reason matches no line of FILE fails the run.
- The slowest files are listed at the end with their seconds (set-up, tests and teardown
  added up): where ``make test``'s time goes, and the figures ``pytest.mark.slow`` carries.

Usage: ``python tools/run_pytest.py [--allowed-skips FILE] PYTEST_ARGS...``
"""

from __future__ import annotations

import os
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

# One BLAS and OpenMP thread in every process of the run, as kernel_env() gives the kernels
# the kit starts: the workers keep both cores busy already, and a second BLAS thread only
# spins beside them. Set before a plugin or conftest loads NumPy or torch, so every child
# inherits it too (xdist's workers, nbval's kernels, JupyterLab's, the by-hand interpreters a
# check starts: importing NumPy took 0.14 s of CPU with two OpenBLAS threads, 0.07 s with one,
# and test_exercises_01.py starts 193 of them). A thread count the caller set is kept
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

NO_TESTS_COLLECTED = 5
# nbval's nbformat imports jsonschema, which builds rfc3987_syntax's grammars as it is
# imported (where JupyterLab's jupyter-events installed the package): 1.5 s of CPU in every
# pytest process, for IRI formats no notebook schema uses (autogradkit_instructor skips them
# alike). ``-p run_pytest`` loads this module before the installed plugins, in each pytest-xdist
# worker too (its path is the main process's)
sys.modules.setdefault("rfc3987_syntax", None)  # None: "import rfc3987_syntax" fails at once


def read_allowed(path: Path) -> list[re.Pattern]:
    """One regular expression per line, matched against the start of a skip's reason.

    Blank lines and ``#`` comments are ignored, so each pattern can say why it is allowed.
    """
    patterns = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            patterns.append(re.compile(line))
    return patterns


class SkipReport:
    """A pytest plugin that counts skips by reason and judges them against an allow-list."""

    def __init__(self, allowed: list[re.Pattern] | None):
        self.allowed = allowed
        self.reasons: Counter[str] = Counter()

    def pytest_runtest_logreport(self, report):
        if report.skipped and not hasattr(report, "wasxfail"):
            self.count(report)

    def pytest_collectreport(self, report):
        """A whole module skipped while it is collected (``import_or_skip("torch")``)."""
        if report.skipped:
            self.count(report)

    def count(self, report):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else "skipped"
        self.reasons[reason.removeprefix("Skipped: ")] += 1

    def unexpected(self) -> list[str]:
        if self.allowed is None:
            return []
        return [r for r in self.reasons if not any(p.match(r) for p in self.allowed)]

    def pytest_terminal_summary(self, terminalreporter):
        if not self.reasons:
            return
        unexpected = set(self.unexpected())
        terminalreporter.section("skips by reason")
        for reason, count in self.reasons.most_common():
            mark = "  NOT ALLOWED" if reason in unexpected else ""
            terminalreporter.write_line(f"{count:5d}  {reason}{mark}")

    def pytest_sessionfinish(self, session):
        if self.unexpected() and session.exitstatus == 0:
            session.exitstatus = 1


class FileTimes:
    """A pytest plugin that adds up each test file's seconds (every worker's reports reach the
    main process) and lists the slowest files at the end."""

    SHOWN = 15

    def __init__(self):
        self.seconds: Counter[str] = Counter()

    def pytest_runtest_logreport(self, report):
        self.seconds[report.nodeid.split("::", 1)[0]] += report.duration

    def pytest_terminal_summary(self, terminalreporter):
        if len(self.seconds) < 2:
            return
        total = sum(self.seconds.values())
        terminalreporter.section(f"slowest files (of {total:.0f} s in {len(self.seconds)} files)")
        for path, seconds in self.seconds.most_common(self.SHOWN):
            terminalreporter.write_line(f"{seconds:7.1f} s  {path}")


def main(argv: list[str]) -> int:
    allowed = None
    if argv[:1] == ["--allowed-skips"]:
        allowed, argv = read_allowed(Path(argv[1])), argv[2:]
    skips = SkipReport(allowed)
    code = int(pytest.main(["-p", "run_pytest", *argv], plugins=[skips, FileTimes()]))
    if code == NO_TESTS_COLLECTED:
        print(f"error: pytest collected no tests for: {' '.join(argv)}", file=sys.stderr)
        return 1
    if skips.unexpected():
        print("error: tests skipped for reasons outside the allow-list", file=sys.stderr)
        return code or 1
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
