"""Timing helpers: single-threaded BLAS, medians of repeats, peak memory."""

from __future__ import annotations

import os
import sys
import warnings

# NumPy's OpenBLAS reads these once, when NumPy loads. Imported after NumPy, this module
# leaves two BLAS threads spinning against each other on a busy machine: W3's NumPy floor once
# ran 17 times slower that way, and every W3 ratio was meaningless. So it says so.
if "numpy" in sys.modules or "torch" in sys.modules:
    warnings.warn(
        "_timing imported after NumPy or torch: BLAS may use several threads", stacklevel=2
    )
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # before NumPy or torch load: one thread for both

import gc  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402


def interleaved(contenders: dict, repeats: int, warm_up: bool = True) -> dict:
    """Per contender, the medians of what its function returns (a tuple of seconds).

    Each runs once to warm up (unless ``warm_up`` is False), then the contenders take
    turns, round after round. A shared machine that slows down for a while then slows every
    contender alike, so the ratios between them hold even when the times themselves swing.
    """
    for fn in contenders.values() if warm_up else ():
        fn()
    runs: dict = {name: [] for name in contenders}
    for _ in range(repeats):
        for name, fn in contenders.items():
            gc.collect()
            runs[name].append(fn())
    return {
        name: tuple(statistics.median(column) for column in zip(*results))
        for name, results in runs.items()
    }


def wall(fn):
    """``fn`` timed: a function returning ``(seconds,)``, for ``interleaved``."""

    def timed():
        start = time.perf_counter()
        fn()
        return (time.perf_counter() - start,)

    return timed


def peak_bytes(fn) -> tuple[int, object]:
    """Peak Python-traced allocation while ``fn()`` runs (NumPy arrays are traced)."""
    gc.collect()
    tracemalloc.start()
    try:
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, result


def load_torch():
    """torch with one thread, or None when it is not installed."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    return torch
