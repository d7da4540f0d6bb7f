"""What ``obs.by_hand`` costs: starting the interpreter without the kit, and one call in it.

    .venv/bin/python benchmarks/bench_by_hand.py

Prints, as medians: the wall time to start an interpreter and answer its first call, the CPU
that start costs (the kernel's, the interpreter's own and, when it is forked, the fork server's
share), and the time of a call after that (a by-hand check makes one interpreter, a few calls).
"""

from __future__ import annotations

import os
import resource
import statistics
import time

import numpy as np

from autogradkit.grading import by_hand
from autogradkit.grading.by_hand import ByHand

TICK = os.sysconf("SC_CLK_TCK")


def slope(x):
    return 3 * x**2 + 2


def cpu_of(pid: int | None) -> float:
    """The CPU seconds (user + system) process ``pid`` has used so far; 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
    except (OSError, TypeError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def server_pid() -> int | None:
    """The fork server's pid, if one serves this process."""
    servers = getattr(by_hand, "_fork_server", [])
    return servers[0].process.pid if servers else None


def main(repeats: int = 20, calls: int = 200) -> None:
    ByHand(slope)(1.0)  # the first start, that of a fork server if there is one, is not counted
    walls, cpus, per_call = [], [], []
    for _ in range(repeats):
        server = server_pid()
        kernel, server_before = own_cpu(), cpu_of(server)
        began = time.perf_counter()
        hand = ByHand(slope)
        hand(1.0)
        walls.append(time.perf_counter() - began)
        child = cpu_of(hand.process.pid)
        cpus.append(own_cpu() - kernel + child + cpu_of(server) - server_before)
        began = time.perf_counter()
        for x in np.linspace(-2, 2, calls):
            hand(float(x))
        per_call.append((time.perf_counter() - began) / calls)
        hand.close()
    how = "forked" if server_pid() else "launched"
    print(f"by_hand ({how}): start and first call {statistics.median(walls) * 1e3:.0f} ms wall")
    print(f"by_hand ({how}): start and first call {statistics.median(cpus) * 1e3:.0f} ms CPU")
    print(f"by_hand ({how}): one more call {statistics.median(per_call) * 1e3:.2f} ms (median)")
    by_hand.end_spare()


if __name__ == "__main__":
    main()
