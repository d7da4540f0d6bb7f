"""A sandbox's limits hold for the whole submission, not for each of its processes.

Each attack here was written first and seen succeeding before it was closed (the docstrings
say what it did). The limits are small, so every attack takes seconds and holds little:
no attack here runs without a cap of its own.
"""

from __future__ import annotations

import ast

import pytest

from autogradkit_instructor.kernels import KernelPool, run_silent
from autogradkit_instructor.sandbox import Bubblewrap, Limits

pytestmark = pytest.mark.slow(20)  # a few sandboxed kernels, each attacked for seconds
LIMITS = Limits(memory_mb=1024, processes=30, disk_mb=16)
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


def _podman(limits: Limits):
    from autogradkit_instructor.container import Container

    return Container("podman", limits)


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
