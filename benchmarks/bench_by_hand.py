"""What ``obs.by_hand`` costs: starting the interpreter without the kit, and one call in it.

    .venv/bin/python benchmarks/bench_by_hand.py

Prints, as medians, forked from the fork server and launched (where there is no fork), with
and without the kit (``kit_without``): the wall time to start an interpreter and answer its
first call, the CPU that start costs (the kernel's, the interpreter's own and, when it is
forked, the fork server's share), and the time of a call after that (a by-hand check makes
one interpreter and a few calls).
"""

from __future__ import annotations

import glob
import resource
import statistics
import time

import numpy as np

from autogradkit.grading import by_hand
from autogradkit.grading.by_hand import ByHand

KIT_WITHOUT = ("autogradkit.optim",)  # the kit there, as obs.without has it


def slope(x):
    return 3 * x**2 + 2


def cpu_of(pid: int | None) -> float:
    """The CPU seconds process ``pid`` has used so far, all its threads, to the nanosecond
    (its ``stat`` file in proc counts 10 ms ticks); 0 when it is gone."""
    total = 0
    for task in glob.glob(f"/proc/{pid}/task/*/schedstat") if pid else ():
        try:
            with open(task) as schedstat:
                total += int(schedstat.read().split()[0])
        except OSError:  # a thread that ended meanwhile
            pass
    return total / 1e9


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def server_pid() -> int | None:
    """The fork server's pid, if one serves this process."""
    servers = getattr(by_hand, "_fork_server", [])
    return servers[0].process.pid if servers else None


def bench(repeats: int, calls: int, **options) -> tuple[float, float, float]:
    """Medians over ``repeats`` checks: start and first call (wall, CPU), one more call."""
    ByHand(slope, **options)(1.0)  # a fork server's own start, once a process, is not counted
    walls, cpus, per_call = [], [], []
    for _ in range(repeats):
        server = server_pid()
        kernel, server_before = own_cpu(), cpu_of(server)
        began = time.perf_counter()
        hand = ByHand(slope, **options)
        hand(1.0)
        walls.append(time.perf_counter() - began)
        child = cpu_of(hand.process.pid)
        cpus.append(own_cpu() - kernel + child + cpu_of(server) - server_before)
        began = time.perf_counter()
        for x in np.linspace(-2, 2, calls):
            hand(float(x))
        per_call.append((time.perf_counter() - began) / calls)
        hand.close()
    by_hand.end_spare()
    return tuple(statistics.median(times) * 1e3 for times in (walls, cpus, per_call))


def main(repeats: int = 20, calls: int = 200) -> None:
    forking = list(by_hand._forking)
    print("by_hand, ms (median)      start+first call wall   its CPU   one more call")
    for how in ("forked", "launched"):
        by_hand._forking[:] = forking if how == "forked" else []
        for label, options in (
            ("", {}),
            (", kit_without", {"kit_without": ("autogradkit.optim",)}),
        ):
            wall, cpu, call = bench(repeats, calls, **options)
            print(f"{how + label:<25} {wall:>22.0f} {cpu:>9.0f} {call:>15.2f}")
    by_hand._forking[:] = forking


if __name__ == "__main__":
    main()
