"""A sandbox's limits hold for the whole submission, not for each of its processes.

Each attack here was written first and seen succeeding before it was closed (the docstrings
say what it did). The limits are small, so every attack takes seconds and holds little:
no attack here runs without a cap of its own.
"""

from __future__ import annotations

import ast
import json
import time

import pytest

from autogradkit_instructor import sandbox as sandbox_module
from autogradkit_instructor.cli import main
from autogradkit_instructor.kernels import KernelDied, KernelPool, run_silent
from autogradkit_instructor.sandbox import Bubblewrap, Limits

from . import builders
from .test_attacks_round5 import _released, _write

pytestmark = pytest.mark.slow(22)  # a few sandboxed kernels, each attacked for seconds
LIMITS = Limits(memory_mb=1024, processes=30, disk_mb=16)  # a kernel maps 650 MiB
HOLDERS = (  # four processes of 300 MiB each (1200 MiB under a 1024 MiB limit), for 20 s
    "import subprocess, sys, time\n"
    '_hold = \'import os, time; _data = b"x" * (300 << 20); os.write(1, b"1"); time.sleep(20)\'\n'
    "_held = []\n"
    "for _ in range(4):\n"
    "    _child = subprocess.Popen([sys.executable, '-c', _hold], stdout=subprocess.PIPE)\n"
    "    _held.append(_child.stdout.read(1))\n"
    "time.sleep(3)\n"
)
BOMB = (  # a fork bomb that stops by itself at 64 processes, each spinning for 20 s
    "import os, time\n_end = time.monotonic() + 20\nfor _ in range(6):\n    try:\n"
    "        os.fork()\n    except OSError:\n        pass\n"
    "while time.monotonic() < _end:\n    pass\n"
)
FILLS = (  # MiB written to each writable folder, up to 64 MiB, in files of 1 MiB
    "def _fill(folder):\n"
    "    written = 0\n"
    "    try:\n"
    "        for i in range(64):\n"
    "            with open(f'{folder}/fill{i}', 'wb') as f:\n"
    "                f.write(b'x' * (1 << 20))\n"
    "            written += 1\n"
    "    except OSError:\n"
    "        pass\n"
    "    return written\n"
    "_written = {folder: _fill(folder) for folder in ('/tmp', '/dev/shm', '/dev', '.')}\n"
)


@pytest.fixture
def no_cgroup(monkeypatch):
    """As on a student's laptop or a CI container: no cgroup can be created, rlimits only."""
    monkeypatch.setattr(sandbox_module, "_own_cgroup", lambda controller: None)


def _podman(limits: Limits):
    from autogradkit_instructor.container import Container

    return Container("podman", limits)


def _stopped(kernel, code: str) -> bool:
    """Whether running ``code`` ends with the kernel stopped (not just the code finishing)."""
    try:
        run_silent(kernel, code, timeout=30)
    except KernelDied:
        return True
    return kernel.wait(2.0) == "died"


def test_processes_that_together_pass_the_memory_limit_stop_the_sandbox(
    tmp_path, sandbox, no_cgroup
):
    """Was: without a cgroup, memory was capped by ``RLIMIT_AS`` for each process: four
    processes of 300 MiB each held 1200 MiB under a 1024 MiB limit, and the kernel lived on."""
    with KernelPool(1, sandbox=Bubblewrap(LIMITS), limits=LIMITS) as pool:
        kernel = pool.acquire(tmp_path)
        try:
            assert _stopped(kernel, HOLDERS)
            assert kernel.limit_reached == "memory"
        finally:
            kernel.close()


def test_a_submission_stopped_for_its_memory_says_which_limit(tmp_path, sandbox, no_cgroup):
    """The row names the limit, as for too many processes; the cells before it count."""
    builders.write_course(tmp_path)
    holder = builders.correct(_released())
    builders._answer(holder, "answer_mse", HOLDERS + builders.ANSWERS["answer_mse"])
    _write(tmp_path, "holds_memory", holder)
    args = ["grade", str(tmp_path / "submitted"), "--assignment", "hw1", "--course", str(tmp_path)]
    flags = ["--timeout", "30", "--no-progress", "--memory-limit", str(LIMITS.memory_mb)]
    assert main([*args, *flags]) == 0
    book = json.loads((tmp_path / "grades" / "hw1" / "gradebook.json").read_text())
    row = book["rows"][0]
    assert row["status"] == "kernel_died", row
    assert any("held more than 1024 MiB of memory" in issue for issue in row["issues"]), row
    assert row["tests"]["test_square_sum"]["points"] == 2.0, row


def test_a_sandbox_under_its_memory_limit_lives_on(tmp_path, sandbox, no_cgroup):
    """The control: one process of 300 MiB, under the 1024 MiB limit, finishes its cell."""
    with KernelPool(1, sandbox=Bubblewrap(LIMITS), limits=LIMITS) as pool:
        kernel = pool.acquire(tmp_path)
        try:
            run_silent(kernel, "_data = b'x' * (300 << 20)\nimport time; time.sleep(1)")
            assert kernel.alive() and kernel.limit_reached == ""
        finally:
            kernel.close()


def test_forked_workers_count_the_pages_they_share_once(tmp_path, sandbox, no_cgroup):
    """The control for summing: a kernel holding 200 MiB forks four workers that share it.
    Their resident sets add up to 1000 MiB and more, over the 1024 MiB limit with the kernel's
    own; what they hold together (``Pss``: shared pages split among their users) is far
    under it, and the sandbox lives on."""
    workers = (
        "import os, time\n_data = b'x' * (200 << 20)\n_workers = []\n"
        "for _ in range(4):\n    _pid = os.fork()\n    if _pid == 0:\n"
        "        time.sleep(3)\n        os._exit(0)\n    _workers.append(_pid)\n"
        "for _pid in _workers:\n    os.waitpid(_pid, 0)\n"
    )
    with KernelPool(1, sandbox=Bubblewrap(LIMITS), limits=LIMITS) as pool:
        kernel = pool.acquire(tmp_path)
        try:
            run_silent(kernel, workers)
            assert kernel.alive() and kernel.limit_reached == ""
        finally:
            kernel.close()


@pytest.mark.parametrize("runtime", ["sandbox", "podman"])
def test_every_writable_tmpfs_of_the_sandbox_is_capped_at_the_disk_limit(
    tmp_path, request, runtime
):
    """Was: in bubblewrap, ``/tmp``, ``/dev/shm`` and ``/dev`` were tmpfs of half the
    machine's memory each: a student could hold gigabytes of the grader's memory in files
    there (64 MiB went into each under a 16 MiB disk limit); Podman's ``/tmp`` was as large.
    Only the home folder was capped."""
    request.getfixturevalue(runtime)  # skipped, with the reason, where it is missing
    backend = Bubblewrap(LIMITS) if runtime == "sandbox" else _podman(LIMITS)
    with KernelPool(1, sandbox=backend, limits=LIMITS, startup_timeout=90) as pool:
        kernel = pool.acquire(tmp_path)
        try:
            written = ast.literal_eval(run_silent(kernel, FILLS, expression="_written"))
        finally:
            kernel.close()
    assert all(mib <= LIMITS.disk_mb for mib in written.values()), written
    assert written["."] >= LIMITS.disk_mb - 1, written  # the home folder takes what it may


def test_a_fork_bomb_in_a_podman_container_is_stopped(tmp_path, podman):
    """Was: the watchdog counted the processes below the ``podman`` client, which has none
    (the container's processes are the runtime's children): a fork bomb held by
    ``--pids-limit`` spun on until its cell's time limit."""
    backend = _podman(LIMITS)
    with KernelPool(1, sandbox=backend, limits=LIMITS, startup_timeout=90) as pool:
        kernel = pool.acquire(tmp_path)
        try:
            started = time.monotonic()
            assert _stopped(kernel, BOMB)
            assert time.monotonic() - started < 15
            assert kernel.limit_reached == "processes"
        finally:
            kernel.close()
