"""A machine and a user unlike the one the kit was written on.

A machine smaller than it says: the tools count the cores this process may use, not the
machine's. A CI runner or container pinned to one core of a large host (``taskset -c 0``,
``docker --cpuset-cpus``) reports every core of the host in ``os.cpu_count()``. A user's
umask decides who may read what the tools write, for every file alike."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="Linux only")
def test_make_test_starts_workers_for_the_cores_it_may_use():
    """``make test`` on one core of a 64-core host started 65 pytest workers, each with its
    kernels, where 2 fit."""
    pinned = (
        "import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
        "from tools import run_stages; print(run_stages.WORKERS[1])"
    )
    ran = subprocess.run(
        [sys.executable, "-c", pinned], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert ran.stdout.strip() == "2"


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o027])
def test_what_grade_and_report_write_follows_the_umask_as_any_file(tmp_path, umask):
    """Feedback pages, gradebooks, exports and the class report were 0600 whatever the umask
    (written through ``tempfile.mkstemp``), where every other file grade writes (the graded
    copies) followed it: a web server or the TAs' group could read the graded notebooks
    but not the pages."""
    from autogradkit_instructor.report import write_atomic

    old = os.umask(umask)
    try:
        write_atomic(tmp_path / "gradebook.csv", "student,score\n")
        (tmp_path / "plain.csv").write_text("student,score\n")
    finally:
        os.umask(old)
    mode = (tmp_path / "gradebook.csv").stat().st_mode & 0o777
    assert mode == (tmp_path / "plain.csv").stat().st_mode & 0o777 == 0o666 & ~umask
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gradebook.csv", "plain.csv"]
