"""autogradkit benchmarks: ``make bench``, or ``python benchmarks/run.py [--quick] [--only W1,W3]``.

Each workload runs in one process side by side: autogradkit, PyTorch (when installed) and
a hand-written NumPy version with no graph (the floor). Medians of repeats, single-threaded
BLAS. Prints a table of figures and ratios and ends with one summary line. Nothing here is a
pass/fail test: the targets are printed next to the figures.
"""

from __future__ import annotations

import argparse
import gc
import sys
import weakref
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import interleaved, load_torch, peak_bytes, wall  # noqa: E402, I001  (one BLAS thread: first)

import numpy as np  # noqa: E402
import workloads as wl  # noqa: E402

import autogradkit as agk  # noqa: E402

ROWS: list[tuple] = []  # (workload, metric, autogradkit, torch, floor, target text, met)


def record(name, metric, ours, theirs, floor, target, met):
    ROWS.append((name, metric, ours, theirs, floor, target, met))


def ratio(a, b):
    return None if a is None or b is None else a / b


def _contenders(torch, ours, theirs, floor) -> dict:
    """The three contenders of a workload (torch only when installed)."""
    found = {"autogradkit": ours, "floor": floor}
    if torch:
        found["torch"] = theirs
    return found


def bench_w1(torch, quick):
    epochs = 20 if quick else 100
    times = interleaved(
        _contenders(
            torch,
            wall(lambda: wl.w1_library(agk, epochs)),
            wall(lambda: wl.w1_library(torch, epochs)),
            wall(lambda: wl.w1_numpy(epochs)),
        ),
        5,
    )
    ours, floor = times["autogradkit"][0] / epochs * 1e6, times["floor"][0] / epochs * 1e6
    theirs = times["torch"][0] / epochs * 1e6 if torch else None
    r = ratio(ours, theirs)
    record(
        "W1 one-weight loop",
        "us/epoch",
        ours,
        theirs,
        floor,
        "<= 1.0x torch",
        r is None or r <= 1.0,
    )


def bench_w2(torch, quick):
    n = 200 if quick else 1000
    times = interleaved(
        _contenders(
            torch,
            lambda: wl.chain_library(agk, n),
            lambda: wl.chain_library(torch, n),
            lambda: wl.chain_numpy(n),
        ),
        5 if quick else 15,
    )
    ours, floor = times["autogradkit"], times["floor"]
    theirs = times["torch"] if torch else (None, None)
    for k, label in enumerate(("forward", "backward")):
        per_op = [None if t[k] is None else t[k] / n * 1e6 for t in (ours, theirs, floor)]
        r = ratio(per_op[0], per_op[1])
        record(f"W2 per-op {label}", "us/op", *per_op, "<= 1.0x torch", r is None or r <= 1.0)


def bench_w3(torch, quick):
    steps = 20 if quick else 200
    times = interleaved(
        _contenders(
            torch,
            wall(lambda: wl.w3_library(agk, steps)),
            wall(lambda: wl.w3_library(torch, steps)),
            wall(lambda: wl.w3_numpy(steps)),
        ),
        3 if quick else 5,
    )
    ours, floor = steps / times["autogradkit"][0], steps / times["floor"][0]
    theirs = steps / times["torch"][0] if torch else None
    peak, _ = peak_bytes(lambda: wl.w3_library(agk, 2))
    met = (theirs is None or ours >= theirs) and floor / ours <= 1.3
    record("W3 MLP training", "steps/s", ours, theirs, floor, ">= torch, floor <= 1.3x", met)
    record("W3 peak traced memory", "MB", peak / 2**20, None, None, "(information)", True)


def bench_w4(torch, quick):
    sizes = (1_000, 10_000) if quick else (1_000, 10_000, 100_000, 1_000_000)
    wl.chain_library(agk, 1_000)  # warm up caches and lazy imports before timing
    if torch:
        wl.chain_library(torch, 1_000)
    per_op = {}
    for n in sizes:
        contenders = {"autogradkit": lambda n=n: wl.chain_library(agk, n)}
        if torch and n <= 100_000:
            contenders["torch"] = lambda n=n: wl.chain_library(torch, n)
        times = interleaved(contenders, max(1, 10_000 // n), warm_up=False)
        per_op[n] = sum(times["autogradkit"]) / n * 1e6
        theirs = sum(times["torch"]) / n * 1e6 if "torch" in times else None
        gc.collect()
        r = ratio(per_op[n], theirs)
        record(
            f"W4 chain of {n:,}",
            "us/op",
            per_op[n],
            theirs,
            None,
            "<= 1.0x torch, no RecursionError",
            r is None or r <= 1.0,
        )
    flat = per_op[sizes[-1]] / per_op[sizes[0]]
    record("W4 scaling", f"{sizes[-1]:,} vs {sizes[0]:,}", flat, None, None, "<= 1.5x", flat <= 1.5)


def bench_w5(torch, quick):
    weights, x = wl.deep_weights(layers=5 if quick else 20), wl.w5_inputs()
    floor_peak, _ = peak_bytes(lambda: wl.w5_numpy(weights, x))

    def no_grad_forward():
        with agk.no_grad():
            return wl.w5_library(agk, weights, x, grad=False)

    nograd_peak, _ = peak_bytes(no_grad_forward)
    grad_peak, (root, _) = peak_bytes(lambda: wl.w5_library(agk, weights, x))
    saved = _saved_intermediate_arrays(root, keep=x)
    root.backward()
    del root
    gc.collect()
    alive = sum(ref() is not None for ref in saved)
    mb = 2**20
    record(
        "W5 forward, no_grad",
        "MB peak",
        nograd_peak / mb,
        None,
        floor_peak / mb,
        "<= 1.2x floor",
        nograd_peak <= 1.2 * floor_peak,
    )
    record(
        "W5 forward, with grad",
        "MB peak",
        grad_peak / mb,
        None,
        floor_peak / mb,
        "(saved tensors)",
        True,
    )
    record("W5 saved arrays alive after backward", "count", alive, None, None, "0", alive == 0)


def _saved_intermediate_arrays(root, keep):
    """Weak references to every array the graph saved that neither a leaf nor we own."""
    from autogradkit.autograd.graph import walk

    leaf_arrays = {id(keep)}
    refs = []
    for node in walk(root.grad_fn):
        if hasattr(node, "variable"):
            leaf_arrays.add(id(node.variable._data))
    for node in walk(root.grad_fn):
        for value in getattr(node, "_saved", None) or ():
            if isinstance(value, np.ndarray) and id(value) not in leaf_arrays:
                refs.append(weakref.ref(value))
    return refs


def bench_w6(quick):
    from notebooks_timing import time_notebooks

    for path, seconds in time_notebooks(limit=2 if quick else None):
        record(f"W6 {path}", "s", seconds, None, None, "< 15 s", seconds < 15)


def bench_w7(quick):
    try:
        import bench_grading
    except ImportError as error:
        print(f"W7 skipped: {error}")
        return
    bench_grading.main(["--skip-nbgrader"] if quick else [])  # nbgrader runs when installed


def print_table():
    header = (
        f"{'workload':38} {'metric':14} {'autogradkit':>12} {'torch':>10} {'floor':>10} "
        f"{'vs torch':>9} {'vs floor':>9}  target"
    )
    print(header)
    print("-" * len(header))
    for name, metric, ours, theirs, floor, target, met in ROWS:
        cells = [f"{v:12.2f}" if v is not None else f"{'-':>12}" for v in (ours,)]
        cells += [f"{v:10.2f}" if v is not None else f"{'-':>10}" for v in (theirs, floor)]
        r1, r2 = ratio(ours, theirs), ratio(ours, floor)
        cells += [f"{r:9.2f}" if r is not None else f"{'-':>9}" for r in (r1, r2)]
        print(f"{name:38} {metric:14} {' '.join(cells)}  {target} {'ok' if met else 'MISSED'}")
    missed = [name for name, *_, met in ROWS if not met]
    print(
        f"\nsummary: {len(ROWS) - len(missed)}/{len(ROWS)} targets met"
        + (f"; missed: {', '.join(missed)}" if missed else "")
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument("--only", default="W1,W2,W3,W4,W5,W6,W7")
    args = parser.parse_args(argv)
    torch = load_torch()
    if torch is None:
        print("torch is not installed: the torch column stays empty")
    chosen = set(args.only.split(","))
    for name, bench in (
        ("W1", bench_w1),
        ("W2", bench_w2),
        ("W3", bench_w3),
        ("W4", bench_w4),
        ("W5", bench_w5),
    ):
        if name in chosen:
            bench(torch, args.quick)
    if "W6" in chosen:
        bench_w6(args.quick)
    print_table()
    if "W7" in chosen:
        bench_w7(args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
