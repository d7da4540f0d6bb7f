"""docs/ARCHITECTURE.md's call-by-call listing is what ``tools/trace_path.py`` traces today.

The block between its ``trace_path.py --markdown`` markers is generated: after a change to
the lesson's path, ``.venv/bin/python tools/trace_path.py --update`` rewrites it, and this
test fails until it does.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "ARCHITECTURE.md"
sys.path.insert(0, str(ROOT / "tools"))

import trace_path  # noqa: E402


def listing(text: str) -> str:
    start = text.index(trace_path.BEGIN)
    return text[start : text.index(trace_path.END, start) + len(trace_path.END)]


def test_the_architecture_listing_is_the_trace_of_today():
    assert listing(DOC.read_text(encoding="utf-8")) == trace_path.markdown(), (
        "docs/ARCHITECTURE.md's call listing is stale: run "
        "`.venv/bin/python tools/trace_path.py --update`"
    )


def test_the_listing_names_every_call_in_order_under_its_caller():
    """Each traced call is a line of the block, in order, indented under its caller."""
    block = trace_path.markdown()
    statement, setup, again, *_ = trace_path.PATHS[1]
    calls = trace_path.trace_nested(statement, trace_path.SETUP + setup, again)
    lines = block.split(f">>> {statement}")[1].splitlines()[1 : 1 + len(calls)]
    assert [line.split()[-1] for line in lines] == [name for _, _, name in calls]
    depth = {name: depth for depth, _, name in calls}
    assert depth["TensorBase.backward"] == 0
    assert depth["SumBackward0.backward"] == depth["MulBackward0.backward"]
    assert depth["SumBackward0.backward"] == depth["run_backward"] + 1  # the loop runs them


def test_update_rewrites_only_the_block(tmp_path):
    doc = tmp_path / "ARCHITECTURE.md"
    doc.write_text(f"before\n{trace_path.BEGIN}\nstale\n{trace_path.END}\nafter\n")
    assert trace_path.update(doc)
    assert doc.read_text() == f"before\n{trace_path.markdown()}\nafter\n"
    assert not trace_path.update(doc)
