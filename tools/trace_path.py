"""Which autogradkit functions a statement runs: the lesson's path, measured.

    python tools/trace_path.py            # the two paths of issue 20, with their budgets
    python tools/trace_path.py --setup "import autogradkit as agk; x = agk.ones(2)" "x.exp()"

The setup and the statement run once untraced (a warm-up: what is made on first use, such as
a leaf's AccumulateGrad node, which the warm-up's graph keeps alive, is not counted), then the
path's own setup again (a fresh graph to run backward on); then ``sys.setprofile`` records every
Python function of the
``autogradkit`` package that the statement calls on its second run (C functions, NumPy and the
standard library are not counted; a comprehension or generator expression counts as part of
the function it is written in, as Python 3.12 runs comprehensions). Each distinct function is
listed once, in the order first called, with its file. Exit code 1 when a path is over budget.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "autogradkit"
SETUP = "import autogradkit as agk\n"
LEAVES = (
    "a = agk.tensor([1., 2.], requires_grad=True)\nb = agk.tensor([3., 4.], requires_grad=True)\n"
)
INLINE = {"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"}
# (statement, extra setup, most functions, most files): the budgets of issue 20
PATHS = (
    ("c = a * b", LEAVES, "", 7, 3),  # the second a * b: a and b have their AccumulateGrad
    ("c.sum().backward()", "", LEAVES + "c = a * b\n", 12, 4),  # new leaves, a new graph
)


def trace(statement: str, setup: str, again: str = "") -> list[tuple[str, str]]:
    """``(file, function)`` for each distinct autogradkit function ``statement`` calls."""
    namespace: dict = {}
    exec(compile(setup + again, "<setup>", "exec"), namespace)
    code = compile(statement, "<statement>", "exec")
    exec(code, namespace)  # the warm-up
    exec(compile(again, "<setup>", "exec"), namespace)
    root = str(PACKAGE)
    seen: dict[tuple[str, str], None] = {}

    def profile(frame, event, arg):
        code = frame.f_code
        if event == "call" and code.co_filename.startswith(root) and code.co_name not in INLINE:
            where = str(Path(code.co_filename).relative_to(PACKAGE.parent))
            seen.setdefault((where, code.co_qualname), None)

    sys.setprofile(profile)
    try:
        exec(code, namespace)
    finally:
        sys.setprofile(None)
    return list(seen)


def show(statement: str, calls: list[tuple[str, str]]) -> tuple[int, int]:
    files = list(dict.fromkeys(where for where, _ in calls))
    print(f">>> {statement}")
    for where, name in calls:
        print(f"    {where:34s} {name}")
    print(f"    {len(calls)} functions in {len(files)} files")
    return len(calls), len(files)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("statement", nargs="?", help="what to trace (default: issue 20's paths)")
    parser.add_argument("--setup", default=SETUP + LEAVES, help="run first, untraced")
    args = parser.parse_args(argv)
    if args.statement:
        show(args.statement, trace(args.statement, args.setup))
        return 0
    args.setup = SETUP
    over = False
    for statement, setup, again, most_functions, most_files in PATHS:
        functions, files = show(statement, trace(statement, args.setup + setup, again))
        verdict = functions <= most_functions and files <= most_files
        print(f"    budget: {most_functions} functions in {most_files} files: ", end="")
        print("within" if verdict else "OVER")
        over |= not verdict
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
