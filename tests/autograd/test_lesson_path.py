"""The lesson's path stays short: what ``a * b`` and ``c.sum().backward()`` run (issue 20).

``tools/trace_path.py`` traces the autogradkit functions each statement calls (after a
warm-up); a student who follows the code reads these and no more.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import trace_path  # noqa: E402


@pytest.mark.parametrize("path", trace_path.PATHS, ids=lambda p: p[0])
def test_the_lesson_path_stays_within_its_budget(path):
    statement, setup, again, most_functions, most_files = path
    calls = trace_path.trace(statement, trace_path.SETUP + setup, again)
    files = {where for where, _ in calls}
    assert len(calls) <= most_functions, calls
    assert len(files) <= most_files, files


def test_the_multiplication_runs_its_op_and_records_its_node():
    calls = trace_path.trace("c = a * b", trace_path.SETUP + trace_path.LEAVES)
    assert ("autogradkit/ops/arithmetic.py", "MulBackward0.forward") in calls
    assert ("autogradkit/autograd/function.py", "Function.apply") in calls


def test_backward_runs_each_node_once_and_ends_in_accumulate_grad():
    again = trace_path.LEAVES + "c = a * b\n"
    calls = trace_path.trace("c.sum().backward()", trace_path.SETUP, again)
    names = [name for _, name in calls]
    assert names.count("MulBackward0.backward") == names.count("SumBackward0.backward") == 1
    assert "AccumulateGrad.backward" in names
