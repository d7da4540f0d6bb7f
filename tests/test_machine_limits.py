"""A machine smaller than it says: the tools count the cores this process may use, not the
machine's. A CI runner or container pinned to one core of a large host (``taskset -c 0``,
``docker --cpuset-cpus``) reports every core of the host in ``os.cpu_count()``."""

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
