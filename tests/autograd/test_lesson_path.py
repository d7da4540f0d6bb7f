"""The lesson's path stays short: what ``a * b`` and ``c.sum().backward()`` run (issue 30).

``tools/trace_path.py`` traces every call of an autogradkit function each statement makes
(after a warm-up, on fresh leaves), and counts the switches from one file to another: a
student who follows the code reads these and no more, in as few files as that.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import line_count  # noqa: E402
import trace_path  # noqa: E402


@pytest.mark.parametrize("path", trace_path.PATHS, ids=lambda p: p[0])
def test_the_lesson_path_stays_within_its_budget(path):
    statement, setup, again, most_calls, most_switches = path
    calls = trace_path.trace(statement, trace_path.SETUP + setup, again)
    assert len(calls) <= most_calls, calls
    assert trace_path.switches(calls) <= most_switches, calls


def test_a_switch_is_a_call_into_another_file():
    calls = [("t.py", "f"), ("t.py", "g"), ("u.py", "h"), ("t.py", "f"), ("t.py", "f")]
    assert trace_path.switches(calls) == 2


def test_the_first_use_of_a_leaf_counts():
    """Fresh leaves: ``a * b`` makes their AccumulateGrad nodes, and the trace sees it."""
    statement, setup, again, *_ = trace_path.PATHS[0]
    calls = trace_path.trace(statement, trace_path.SETUP + setup, again)
    assert [name for _, name in calls].count("AccumulateGrad.__init__") == 2


def test_the_multiplication_runs_its_op_and_records_its_node():
    calls = trace_path.trace("c = a * b", trace_path.SETUP + trace_path.LEAVES)
    assert ("autogradkit/ops/arithmetic.py", "MulBackward0.forward") in calls
    assert ("autogradkit/autograd/engine.py", "Function.apply") in calls


def test_backward_runs_each_node_once_and_ends_in_accumulate_grad():
    again = trace_path.LEAVES + "c = a * b\n"
    calls = trace_path.trace("c.sum().backward()", trace_path.SETUP, again)
    names = [name for _, name in calls]
    assert names.count("MulBackward0.backward") == names.count("SumBackward0.backward") == 1
    assert "AccumulateGrad.backward" in names


def test_line_count_names_the_files_the_path_runs_through():
    """tools/line_count.py reports the lesson's path files: exactly the ones traced."""
    files = set()
    for statement, setup, again, *_ in trace_path.PATHS:
        calls = trace_path.trace(statement, trace_path.SETUP + setup, again)
        files |= {where.removeprefix("autogradkit/") for where, _ in calls}
    assert files == set(line_count.PATH)
