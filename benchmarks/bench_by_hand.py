"""What ``obs.by_hand`` costs: starting the interpreter without the kit, and one call in it.

    .venv/bin/python benchmarks/bench_by_hand.py

Prints the median time to start the interpreter and answer its first call, and the median
time of a call after that (a by-hand check makes one interpreter and a few calls).
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from autogradkit.grading.by_hand import ByHand


def slope(x):
    return 3 * x**2 + 2


def main(repeats: int = 10, calls: int = 200) -> None:
    starts, per_call = [], []
    for _ in range(repeats):
        began = time.perf_counter()
        hand = ByHand(slope)
        hand(1.0)
        starts.append(time.perf_counter() - began)
        began = time.perf_counter()
        for x in np.linspace(-2, 2, calls):
            hand(float(x))
        per_call.append((time.perf_counter() - began) / calls)
        hand.close()
    print(f"by_hand: start and first call {statistics.median(starts) * 1e3:.0f} ms (median)")
    print(f"by_hand: one more call {statistics.median(per_call) * 1e3:.2f} ms (median)")


if __name__ == "__main__":
    main()
