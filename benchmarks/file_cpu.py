"""CPU seconds of test files, every process each one starts included: what ``make test`` pays.

``make test`` runs on 2 cores shared by every worker, kernel, sandbox and browser, so its wall
time follows the CPU all of them use, not a file's wall time alone: a file's seconds in the
"slowest files" list grow with whatever runs beside it (05's exercises took 80 s there without
the optional packages and 178 s with them, for the same 44 s of CPU). Measure CPU instead.

GNU ``time`` and ``RUSAGE_CHILDREN`` miss most of it: a sandboxed kernel is killed with
its ``bwrap``, and a by-hand interpreter is the child of a fork server, so neither is waited
for by a process of the run (``time`` gave 1.2 s for grading two notebooks that cost
5.3 s). Here each file runs in a cgroup of its own (v1 ``cpuacct`` or v2 ``cpu``), which
counts every process started inside it, waited for or not. Needs root (it makes the cgroups).

Usage: ``.venv/bin/python benchmarks/file_cpu.py tests/x.py [tests/y.py ...]``
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
V2 = Path("/sys/fs/cgroup")  # the cgroup v2 hierarchy; v1 mounts cpuacct's inside it
V1 = V2 / "cpuacct"


def cpu_seconds(group: Path) -> float:
    """The CPU the processes of ``group`` used, in seconds (v1: nanoseconds, v2: µs)."""
    if (group / "cpuacct.usage").is_file():
        return int((group / "cpuacct.usage").read_text()) / 1e9
    usage = (group / "cpu.stat").read_text().split("\n", 1)[0]  # usage_usec N
    return int(usage.split()[1]) / 1e6


def run_in_group(argv: list[str], name: str) -> tuple[float, float, int]:
    """Run ``argv`` in a new cgroup; its CPU seconds, wall seconds and exit code."""
    group = (V1 if V1.is_dir() else V2) / name
    group.mkdir()

    def join_group() -> None:  # in the child, before exec: all it starts follows
        (group / "cgroup.procs").write_text(str(os.getpid()))

    try:
        start = time.monotonic()
        code = subprocess.run(argv, cwd=ROOT, preexec_fn=join_group, capture_output=True).returncode
        wall = time.monotonic() - start
        time.sleep(0.5)  # a killed kernel's last moments
        return cpu_seconds(group), wall, code
    finally:
        for pid in (group / "cgroup.procs").read_text().split():  # left running: out, then rmdir
            (group.parent / "cgroup.procs").write_text(pid)
        group.rmdir()


def main(files: list[str]) -> int:
    if not files:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    print(f"{'CPU s':>7} {'wall s':>7}  file")
    for path in files:
        argv = [sys.executable, "tools/run_pytest.py", path, "-q", "-p", "no:cacheprovider"]
        cpu, wall, code = run_in_group(argv, f"file-cpu-{os.getpid()}")
        print(f"{cpu:7.1f} {wall:7.1f}  {path}{'' if code == 0 else f'  (exit {code})'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
