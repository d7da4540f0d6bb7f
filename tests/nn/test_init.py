"""nn.init: each initialiser fills in place under no_grad, with PyTorch's formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest

import autogradkit as agk
from autogradkit.nn import init


def _param(*shape):
    return agk.nn.Parameter(agk.empty(*shape))


def test_initialisers_work_on_parameters_in_place_and_bump_the_version():
    p = _param(3, 4)
    for fill in (
        init.zeros_,
        init.ones_,
        lambda t: init.constant_(t, 2.5),
        lambda t: init.uniform_(t, -1, 1),
        lambda t: init.normal_(t, 0, 1),
        init.xavier_uniform_,
        init.xavier_normal_,
        init.kaiming_uniform_,
        init.kaiming_normal_,
    ):
        before = p._version
        assert fill(p) is p
        assert p._version == before + 1 and p.is_leaf and p.grad_fn is None


def test_constant_zeros_ones():
    p = _param(2)
    assert init.constant_(p, 8.0).tolist() == [8.0, 8.0]
    assert init.zeros_(p).tolist() == [0.0, 0.0]
    assert init.ones_(p).tolist() == [1.0, 1.0]


@pytest.mark.parametrize(
    "nonlinearity, param, expected",
    [
        ("linear", None, 1),
        ("sigmoid", None, 1),
        ("conv2d", None, 1),
        ("tanh", None, 5 / 3),
        ("relu", None, math.sqrt(2)),
        ("leaky_relu", None, math.sqrt(2 / (1 + 0.01**2))),
        ("leaky_relu", math.sqrt(5), math.sqrt(1 / 3)),
        ("selu", None, 0.75),
    ],
)
def test_calculate_gain(nonlinearity, param, expected):
    assert init.calculate_gain(nonlinearity, param) == pytest.approx(expected)


def test_calculate_gain_errors():
    with pytest.raises(ValueError, match="Unsupported nonlinearity gelu"):
        init.calculate_gain("gelu")
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        init.calculate_gain("leaky_relu", True)


def test_uniform_and_normal_statistics():
    agk.manual_seed(0)
    u = init.uniform_(agk.empty(20000), -2.0, 3.0).numpy()
    assert u.min() >= -2 and u.max() <= 3 and abs(u.mean() - 0.5) < 0.05
    n = init.normal_(agk.empty(20000), 1.0, 2.0).numpy()
    assert abs(n.mean() - 1.0) < 0.05 and abs(n.std() - 2.0) < 0.05


def test_xavier_bounds_and_std():
    w = init.xavier_uniform_(agk.empty(200, 300), gain=2.0).numpy()
    bound = 2.0 * math.sqrt(6 / 500)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.99 * bound
    w = init.xavier_normal_(agk.empty(200, 300)).numpy()
    assert abs(w.std() - math.sqrt(2 / 500)) < 0.002


def test_kaiming_fans_and_modes():
    w = init.kaiming_uniform_(agk.empty(100, 400), nonlinearity="relu").numpy()
    assert np.abs(w).max() <= math.sqrt(6 / 400)
    w = init.kaiming_normal_(agk.empty(400, 100), mode="fan_out", nonlinearity="relu").numpy()
    assert abs(w.std() - math.sqrt(2 / 400)) < 0.003
    conv = agk.empty(8, 4, 3, 3)  # fan_in counts the kernel: 4 * 3 * 3
    assert init._calculate_fan_in_and_fan_out(conv) == (36, 72)
    with pytest.raises(
        ValueError,
        match=r"Mode fan_avg not supported, please use one of "
        r"\['fan_in', 'fan_out'\]",
    ):
        init.kaiming_uniform_(agk.empty(2, 2), mode="fan_avg")


def test_fan_needs_two_dims_and_empty_tensors_warn():
    with pytest.raises(
        ValueError,
        match="Fan in and fan out can not be computed for tensor with fewer than 2 dimensions",
    ):
        init.xavier_uniform_(agk.empty(3))
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(agk.empty(0, 3))


def test_seeded_initialisers_repeat():
    agk.manual_seed(7)
    a = init.normal_(agk.empty(5)).tolist()
    agk.manual_seed(7)
    assert init.normal_(agk.empty(5)).tolist() == a
