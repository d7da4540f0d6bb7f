"""CPU instructions per unit of work, counted by valgrind: figures a busy machine cannot blur.

``python benchmarks/instructions.py`` (needs ``valgrind``; torch is optional). Wall times on a
shared machine swing by half; instruction counts do not. Each figure is the difference of
two runs of one workload (a long and a short one) divided by the extra units, so start-up
and imports cancel out. Instructions are not time: NumPy's vector loops do many per cycle,
Python's interpreter few, and ``rep movsb`` copies count one per byte. Use the counts to
compare two versions of autogradkit, and the wall times of ``run.py`` to compare libraries.
"""

from __future__ import annotations

import re
import shutil
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


def count(workload: str, lib_name: str, n: int) -> int:
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
    ) as proc:
        _, err = proc.communicate()
    found = re.search(r"Collected : (\d+)", err)
    if proc.returncode != 0 or not found:
        raise RuntimeError(f"valgrind failed on {workload} / {lib_name}:\n{err[-2000:]}")
    return int(found.group(1))


def main() -> int:
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing to count (apt install valgrind)")
        return 0
    try:
        import torch  # noqa: F401

        libs = ("autogradkit", "torch", "numpy")
    except ImportError:
        libs = ("autogradkit", "numpy")
    header = " ".join(f"{lib:>14}" for lib in libs)
    print(f"{'workload':22} {header}   (instructions per unit)")
    for workload, (unit, short, long) in UNITS.items():
        cells = []
        for lib in libs:
            per_unit = (count(workload, lib, long) - count(workload, lib, short)) / (long - short)
            cells.append(f"{per_unit:14,.0f}")
        print(f"{workload + ' /' + unit:22} " + " ".join(cells))
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit(main())
