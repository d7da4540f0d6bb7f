"""The benchmark workloads compute the same thing in every implementation (no timings here)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import workloads as wl  # noqa: E402

import autogradkit as agk  # noqa: E402


def test_one_weight_loop_reaches_the_same_w_as_the_numpy_floor():
    assert wl.w1_library(agk, 10) == pytest.approx(wl.w1_numpy(10), rel=1e-5)
    assert wl.w1_library(agk, 100) == pytest.approx(2.0, abs=1e-3)


def test_mlp_training_matches_the_hand_written_numpy_version():
    assert wl.w3_library(agk, 5) == pytest.approx(wl.w3_numpy(5), rel=1e-4)


def test_chain_runs_forward_and_backward_at_every_depth():
    for n in (10, 1_000):
        forward, backward = wl.chain_library(agk, n)
        assert forward > 0 and backward > 0


def test_deep_mlp_forward_matches_numpy():
    weights, x = wl.deep_weights(layers=3), wl.w5_inputs(batch=8)
    root, _ = wl.w5_library(agk, weights, x)
    np.testing.assert_allclose(root.item(), wl.w5_numpy(weights, x), rtol=1e-5)


# (in this process NumPy is loaded before _timing, which says so: true, and not what is tested)
@pytest.mark.filterwarnings("ignore:_timing imported after NumPy")
@pytest.mark.parametrize("workload", ["W2 forward", "W2 forward+backward", "W3 step"])
@pytest.mark.parametrize("lib", ["autogradkit", "numpy"])
def test_every_workload_that_instructions_py_counts_runs(workload, lib):
    import instructions

    assert workload in instructions.UNITS
    instructions.child(workload, lib, 3)  # the process valgrind would watch: must not raise
