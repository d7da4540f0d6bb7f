"""CPU instructions per unit of work, counted by valgrind: figures a busy machine cannot blur.

``python benchmarks/instructions.py`` (needs ``valgrind``; torch is optional). Wall times on a
shared machine swing by half; instruction counts do not. Each figure is the difference of
two runs of one workload (a long and a short one) divided by the extra units, so start-up
and imports cancel out. Instructions are not time: NumPy's vector loops do many per cycle,
Python's interpreter few, and ``rep movsb`` copies count one per byte. Use the counts to
compare two versions of autogradkit, and the wall times of ``run.py`` to compare libraries.

Python's string hashes change with ``PYTHONHASHSEED``, and with them which attribute lookups
collide in the interpreter's caches: a figure can move by a few hundred instructions from
one seed to the next. So each figure is the median over several seeds (``--seeds``: 1, 2, 3
unless told), printed with its spread. ``--only "W2 forward" --libs autogradkit`` counts one
figure in a minute or two; torch takes about ten minutes a seed (it imports slowly under
valgrind).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
UNITS = {
    "W2 forward": ("op", 2_000, 12_000),
    "W2 forward+backward": ("op", 2_000, 12_000),
    "W3 step": ("step", 10, 30),
}


def child(workload: str, lib_name: str, n: int) -> None:
    """Run one workload ``n`` units long (in the process valgrind watches)."""
    sys.path.insert(0, str(HERE))
    import _timing  # noqa: F401  (one BLAS thread)
    import workloads as wl

    lib = None
    if lib_name == "torch":
        lib = _timing.load_torch()
    elif lib_name == "autogradkit":
        import autogradkit as lib
    if workload == "W3 step":
        wl.w3_library(lib, n) if lib else wl.w3_numpy(n)
    elif workload == "W2 forward":
        if lib is None:
            import numpy as np

            x, c = np.ones(4, np.float32), np.full(4, 1.0000001, np.float32)
        else:
            x, c = lib.tensor([1.0] * 4, requires_grad=True), lib.tensor([1.0000001] * 4)
        for i in range(n):
            x = x + c if i % 2 == 0 else x * c
    else:
        wl.chain_library(lib, n) if lib else wl.chain_numpy(n)


def count(workload: str, lib_name: str, n: int, seed: int) -> int:
    """Instructions valgrind counts in one run of ``workload``, ``n`` units long."""
    with subprocess.Popen(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            __file__,
            "--child",
            workload,
            lib_name,
            str(n),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": str(seed)},
    ) as proc:
        _, err = proc.communicate()
    found = re.search(r"Collected : (\d+)", err)
    if proc.returncode != 0 or not found:
        raise RuntimeError(f"valgrind failed on {workload} / {lib_name}:\n{err[-2000:]}")
    return int(found.group(1))


def per_unit(workload: str, lib_name: str, seeds: list[int]) -> list[float]:
    """Instructions per unit of ``workload``, once per hash seed."""
    _, short, long = UNITS[workload]
    return [
        (count(workload, lib_name, long, s) - count(workload, lib_name, short, s)) / (long - short)
        for s in seeds
    ]


def cell(figures: list[float]) -> str:
    """The median over the seeds, and their spread when there are several."""
    text = f"{statistics.median(figures):,.0f}"
    if len(figures) > 1:
        text += f" ({min(figures):,.0f}-{max(figures):,.0f})"
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="hash seeds per figure (1, 2...)")
    parser.add_argument("--only", help="workloads, comma-separated (default: all)")
    parser.add_argument("--libs", help="libraries, comma-separated (default: all installed)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing to count (apt install valgrind)")
        return 0
    libs = ["autogradkit", "torch", "numpy"]
    if importlib.util.find_spec("torch") is None:
        libs.remove("torch")
    libs = args.libs.split(",") if args.libs else libs
    workloads = args.only.split(",") if args.only else list(UNITS)
    seeds = list(range(1, args.seeds + 1))
    print(f"instructions per unit: median over PYTHONHASHSEED {seeds} (min-max)")
    print(f"{'workload':22} " + " ".join(f"{lib:>24}" for lib in libs))
    for workload in workloads:
        cells = [cell(per_unit(workload, lib, seeds)) for lib in libs]
        label = f"{workload} /{UNITS[workload][0]}"
        print(f"{label:22} " + " ".join(f"{c:>24}" for c in cells), flush=True)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit(main())
