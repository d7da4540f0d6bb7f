"""``make test``: lint, unit tests and nbval, each run whatever the others did.

A failing stage never hides another one: every stage runs, each gets one summary line, and
the exit code is non-zero when any stage failed. The last line totals the tests of all
stages as ``total: N passed, N failed, N skipped``.

Usage: ``python tools/run_stages.py [--allowed-skips FILE] [STAGE ...]``
(stages: lint, unit, notebooks; all of them by default).
"""

from __future__ import annotations

import compileall
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from autogradkit_instructor.config import default_jobs
from autogradkit_instructor.kernels import ignore_user_settings

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
LINTED = ["autogradkit", "autogradkit_instructor", "tests", "tools", "benchmarks"]
NBVAL = [
    "-p",
    "no:hypothesispytest",
    "--nbval",
    "--nbval-current-env",
    "--nbval-sanitize-with",
    "tests/nbval_sanitize.cfg",
    "--nbval-cell-timeout",
    "120",
]
# every stage's tests run on every core (pytest-xdist), one test file per worker at a time:
# a file's module fixtures (a course released once, kernels) are made once, and a notebook's
# cells share one kernel. One worker more than cores: a worker often waits (a kernel, a
# sandbox or a browser starting, a time limit running out); the unit stage's processes used
# about 1.3 of 2 cores on average with two. The files go out in the order collected
# (tests/conftest.py puts the slow ones first, the longest first: a long file started last
# would keep one worker busy after the others are done), never re-sorted by their number
# of tests
CORES = default_jobs()  # the cores this process may use: a pinned runner has fewer than cpu_count
WORKERS = ["--numprocesses", str(CORES + 1), "--dist", "loadfile", "--no-loadscope-reorder"]
# release/ holds the English edition and, in release/LANG/, each translated one (zh-CN)
NOTEBOOK_FOLDERS = ("notebooks/source", "notebooks/release", "notebooks/demos")
# the project's own modules, compiled once before the stages: where PYTHONDONTWRITEBYTECODE
# is set (as CI images often set it), no process writes its bytecode, so every kernel, sandbox
# and command of the tests compiled the kit from source again (``import autogradkit,
# autogradkit.viz, autogradkit_instructor.cli``: 1.0 s of CPU, 0.65 s with the bytecode; a
# sandboxed kernel never writes it, even where other processes do). The tests too, their test
# modules in the bytecode pytest's assertion rewriting makes, which pytest writes only where
# bytecode is written: each pytest-xdist worker collects every test file, and collecting took
# 9.4 s of CPU without it, 6 s with it
COMPILED = ("autogradkit", "autogradkit_instructor", "tools", "tests")
COUNT = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed)\b")


def notebooks() -> list[str]:
    found = (p for folder in NOTEBOOK_FOLDERS for p in (ROOT / folder).rglob("*.ipynb"))
    return sorted(str(p.relative_to(ROOT)) for p in found if ".ipynb_checkpoints" not in p.parts)


def commands(stage: str, allowed_skips: list[str]) -> list[list[str]]:
    pytest = [PY, "tools/run_pytest.py", *allowed_skips, "-q"]
    if stage == "lint":
        ruff = [PY, "-m", "ruff"]
        return [[*ruff, "check", *LINTED], [*ruff, "format", "--check", *LINTED]]
    if stage == "unit":
        return [
            [
                *pytest,
                *WORKERS,
                "tests",
                "autogradkit",
                "autogradkit_instructor",
                "--doctest-modules",
            ]
        ]
    if stage == "notebooks":
        found = notebooks()
        if not found:  # pytest would then collect its testpaths: a silent pass, never nbval
            reason = f"nbval: no notebooks under {', '.join(NOTEBOOK_FOLDERS)}"
            return [[PY, "-c", f"import sys; sys.exit({reason!r})"]]
        return [[*pytest, *NBVAL, *WORKERS, *found]]
    raise SystemExit(f"unknown stage {stage!r}: choose from lint, unit, notebooks")


def compile_once() -> None:
    """Write the bytecode of ``COMPILED`` (what is up to date is left as it is), and pytest's
    of the test modules."""
    for folder in COMPILED:
        if (ROOT / folder).is_dir():
            compileall.compile_dir(ROOT / folder, quiet=2)
    try:
        rewrite_tests_once()
    except Exception as error:  # noqa: BLE001 - pytest's private API moved: each worker rewrites
        print(f"run_stages: test modules not rewritten ahead ({error!r})", file=sys.stderr)


def rewrite_tests_once() -> None:
    """Write the assertion-rewritten bytecode of every test module and conftest.py, as pytest
    would cache it, unless it is up to date (pytest reads it even where it writes none)."""
    from _pytest.assertion import rewrite

    for path in sorted((ROOT / "tests").rglob("*.py")):
        if not (path.name.startswith("test_") or path.name == "conftest.py"):
            continue
        pyc = rewrite.get_cache_dir(path) / (path.name[:-3] + rewrite.PYC_TAIL)
        if rewrite._read_pyc(path, pyc) is None:
            stamp, code = rewrite._rewrite_test(path, None)
            pyc.parent.mkdir(exist_ok=True)
            rewrite._write_pyc(_NoTrace, code, stamp, pyc)


class _NoTrace:
    """What ``rewrite._write_pyc`` asks of pytest's assertion state: a ``trace`` of errors."""

    @staticmethod
    def trace(message: str) -> None:
        pass


def run(command: list[str]) -> tuple[int, str]:
    """Run ``command`` from the project root, echoing its output; return code and last lines."""
    tail: list[str] = []
    env = dict(os.environ)
    ignore_user_settings(env)  # nbval's kernels: no matplotlibrc or IPython profile of the user's
    with subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    ) as proc:
        for line in proc.stdout:
            print(line, end="", flush=True)
            tail = (tail + [line])[-5:]
    return proc.returncode, "".join(tail)


def counts(output: str) -> dict[str, int]:
    """pytest's closing tallies, e.g. ``{'passed': 12, 'failed': 1}`` ("error" as failed)."""
    found: dict[str, int] = {}
    for number, word in COUNT.findall(output):
        key = "failed" if word.startswith("error") or word == "xpassed" else word
        found[key] = found.get(key, 0) + int(number)
    return found


def main(argv: list[str]) -> int:
    allowed_skips = argv[:2] if argv[:1] == ["--allowed-skips"] else []
    stages = argv[len(allowed_skips) :] or ["lint", "unit", "notebooks"]
    summary, total, failed_stages = [], {"passed": 0, "failed": 0, "skipped": 0}, 0
    compile_once()
    for stage in stages:
        start, codes, tally = time.monotonic(), [], {}
        for command in commands(stage, allowed_skips):
            code, tail = run(command)
            codes.append(code)
            for key, number in counts(tail).items():
                tally[key] = tally.get(key, 0) + number
        ok = not any(codes)
        failed_stages += not ok
        for key in total:
            total[key] += tally.get(key, 0)
        what = ", ".join(f"{n} {k}" for k, n in tally.items()) or ("clean" if ok else "failed")
        seconds = time.monotonic() - start
        summary.append(f"stage {stage:10} {'ok' if ok else 'FAILED':7} {what} ({seconds:.0f} s)")
    print("\n" + "\n".join(summary))
    if failed_stages and not total["failed"]:
        total["failed"] = failed_stages  # a stage that failed without a failed test still counts
    print(f"total: {total['passed']} passed, {total['failed']} failed, {total['skipped']} skipped")
    return 1 if failed_stages else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
