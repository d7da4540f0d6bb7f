"""Which autogradkit functions a statement runs, in order: the lesson's path, measured.

    python tools/trace_path.py            # the two paths of issue 30, with their budgets
    python tools/trace_path.py --setup "import autogradkit as agk; x = agk.ones(2)" "x.exp()"
    python tools/trace_path.py --markdown # the two paths as docs/ARCHITECTURE.md shows them
    python tools/trace_path.py --update   # write them there (or into --update DOC)

The setup and the statement run once untraced (a warm-up: imports and caches), then the path's
own setup again (fresh leaves, a fresh graph); then ``sys.setprofile`` records every call of a
Python function of the ``autogradkit`` package the statement makes, in order, repeats included
(C functions, NumPy and the standard library are not counted; a comprehension or generator
expression counts as part of the function it is written in, as Python 3.12 runs them). What is
made on first use counts: ``a * b`` on fresh leaves makes their ``AccumulateGrad`` nodes.

A *switch* is a call into a file other than the one of the call before it: what a reader
following the path does when they open the next file. Exit code 1 when a path is over budget.
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
# (statement, setup, setup again before the traced run, most calls, most switches): issue 30
PATHS = (
    ("c = a * b", LEAVES, LEAVES, 12, 3),  # fresh leaves: their AccumulateGrad nodes are made
    ("c.sum().backward()", "", LEAVES + "c = a * b\n", 17, 5),  # issue 30: at most 17 and 5
)


def trace(statement: str, setup: str, again: str = "") -> list[tuple[str, str]]:
    """``(file, function)`` for each call of an autogradkit function ``statement`` makes."""
    return [(where, name) for _, where, name in trace_nested(statement, setup, again)]


def trace_nested(statement: str, setup: str, again: str = "") -> list[tuple[int, str, str]]:
    """``(depth, file, function)`` for each call ``trace`` sees; depth counts the autogradkit
    calls it is made from (0: called by the statement itself)."""
    namespace: dict = {}
    exec(compile(setup + again, "<setup>", "exec"), namespace)
    code = compile(statement, "<statement>", "exec")
    exec(code, namespace)  # the warm-up
    exec(compile(again, "<setup>", "exec"), namespace)
    root = str(PACKAGE)
    calls: list[tuple[int, str, str]] = []
    depth = 0

    def profile(frame, event, arg):
        nonlocal depth
        code = frame.f_code
        if code.co_filename.startswith(root) and code.co_name not in INLINE:
            if event == "call":
                where = str(Path(code.co_filename).relative_to(PACKAGE.parent))
                calls.append((depth, where, code.co_qualname))
                depth += 1
            elif event == "return":
                depth -= 1

    sys.setprofile(profile)
    try:
        exec(code, namespace)
    finally:
        sys.setprofile(None)
    return calls


def switches(calls: list[tuple[str, str]]) -> int:
    """How many calls go to another file than the call before them."""
    return sum(1 for before, now in zip(calls, calls[1:]) if before[0] != now[0])


def show(statement: str, calls: list[tuple[str, str]]) -> tuple[int, int]:
    print(f">>> {statement}")
    for where, name in calls:
        print(f"    {where:34s} {name}")
    print(f"    {len(calls)} calls, {switches(calls)} file switches")
    return len(calls), switches(calls)


DOC = PACKAGE.parent / "docs" / "ARCHITECTURE.md"  # the page showing the paths call by call
BEGIN = "<!-- begin: python tools/trace_path.py --markdown -->"
END = "<!-- end: python tools/trace_path.py --markdown -->"


def markdown() -> str:
    """Issue 30's two paths, call by call, as a Markdown block between BEGIN and END: each
    call indented under its caller, its file named where the reader switches to it."""
    lines = [BEGIN, "```text"]
    for statement, setup, again, *_ in PATHS:
        calls = trace_nested(statement, SETUP + setup, again)
        flat = [call[1:] for call in calls]
        lines += [f">>> {statement}    # {len(calls)} calls, {switches(flat)} file switches"]
        before = None
        for depth, where, name in calls:
            shown = where.removeprefix("autogradkit/") if where != before else ""
            lines.append(f"    {shown:22s} {'  ' * depth}{name}".rstrip())
            before = where
        lines.append("")
    return "\n".join([*lines[:-1], "```", END])


def update(doc: Path) -> bool:
    """Write ``markdown()`` between the markers of ``doc``; whether it changed."""
    text = doc.read_text(encoding="utf-8")
    start, end = text.index(BEGIN), text.index(END) + len(END)
    new = text[:start] + markdown() + text[end:]
    doc.write_text(new, encoding="utf-8")
    return new != text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("statement", nargs="?", help="what to trace (default: issue 30's paths)")
    parser.add_argument("--setup", default=SETUP + LEAVES, help="run first, untraced")
    parser.add_argument("--markdown", action="store_true", help="print the paths' block")
    parser.add_argument(
        "--update",
        type=Path,
        nargs="?",
        const=DOC,
        metavar="DOC",
        help="write it into DOC (docs/ARCHITECTURE.md)",
    )
    args = parser.parse_args(argv)
    if args.markdown:
        print(markdown())
        return 0
    if args.update:
        print(f"{args.update}: {'updated' if update(args.update) else 'already current'}")
        return 0
    if args.statement:
        show(args.statement, trace(args.statement, args.setup))
        return 0
    over = False
    for statement, setup, again, most_calls, most_switches in PATHS:
        calls, moves = show(statement, trace(statement, SETUP + setup, again))
        verdict = calls <= most_calls and moves <= most_switches
        print(f"    budget: {most_calls} calls, {most_switches} switches: ", end="")
        print("within" if verdict else "OVER")
        over |= not verdict
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
