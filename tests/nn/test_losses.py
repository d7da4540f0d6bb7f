"""Losses: values against NumPy formulas for every reduction and option, recorded nodes,
gradients against finite differences (float64), and PyTorch's errors and warnings."""

from __future__ import annotations

import numpy as np
import pytest

import autogradkit as agk
from autogradkit import nn
from autogradkit.nn import functional as F

RNG = np.random.default_rng(0)
LOGITS = RNG.normal(size=(4, 3))
TARGET = np.array([0, 2, 1, 2])


def _log_softmax(x, axis=1):
    shifted = x - x.max(axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis, keepdims=True))


def _t(a, grad=False):
    return agk.tensor(a, dtype=agk.float64, requires_grad=grad)


def _reduce(values, reduction):
    return {"mean": np.mean, "sum": np.sum, "none": lambda v: v}[reduction](values)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_and_l1_values(reduction):
    x, y = RNG.normal(size=(3, 2)), RNG.normal(size=(3, 2))
    np.testing.assert_allclose(
        nn.MSELoss(reduction=reduction)(_t(x), _t(y)).numpy(), _reduce((x - y) ** 2, reduction)
    )
    np.testing.assert_allclose(
        nn.L1Loss(reduction=reduction)(_t(x), _t(y)).numpy(), _reduce(np.abs(x - y), reduction)
    )


def test_mse_records_mse_loss_backward_and_l1_is_composed():
    x = _t(RNG.normal(size=3), grad=True)
    y = _t(RNG.normal(size=3))
    assert F.mse_loss(x, y).grad_fn.name() == "MseLossBackward0"
    assert [F.l1_loss(x, y, reduction=r).grad_fn.name() for r in ("mean", "sum", "none")] == [
        "MeanBackward0",
        "SumBackward0",
        "AbsBackward0",
    ]


def test_mse_target_size_warning_and_broadcast():
    x = _t(RNG.normal(size=(3, 1)), grad=True)
    y = _t(RNG.normal(size=4), grad=True)
    with pytest.warns(
        UserWarning,
        match=r"Using a target size \(autogradkit.Size\(\[4\]\)\) "
        r"that is different to the input size \(autogradkit.Size\(\[3, 1\]\)\). "
        "This will likely lead to incorrect results due to broadcasting. Please "
        "ensure they have the same size.",
    ):
        loss = F.mse_loss(x, y)
    expected = np.mean((x.detach().numpy() - y.detach().numpy()) ** 2)
    np.testing.assert_allclose(loss.item(), expected)
    assert [n.name() for n, _ in loss.grad_fn.next_functions] == ["ExpandBackward0"] * 2


def test_one_weight_mse_gradient_is_minus_16():
    w = agk.tensor(0.0, requires_grad=True)
    loss = nn.MSELoss()(w * 2, agk.tensor(4.0))
    loss.backward()
    assert loss.item() == 16.0 and w.grad.item() == -16.0


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_with_class_indices(reduction):
    loss = F.cross_entropy(_t(LOGITS), agk.tensor(TARGET), reduction=reduction)
    picked = -_log_softmax(LOGITS)[np.arange(4), TARGET]
    np.testing.assert_allclose(loss.numpy(), _reduce(picked, reduction))


def test_cross_entropy_records_nll_over_log_softmax():
    loss = nn.CrossEntropyLoss()(_t(LOGITS, grad=True), agk.tensor(TARGET))
    assert loss.grad_fn.name() == "NllLossBackward0"
    assert loss.grad_fn.next_functions[0][0].name() == "LogSoftmaxBackward0"
    assert len(loss.grad_fn.next_functions) == 1  # targets are not inputs of the node


def test_cross_entropy_gradient_is_softmax_minus_one_hot():
    x = _t(LOGITS, grad=True)
    F.cross_entropy(x, agk.tensor(TARGET)).backward()
    expected = (np.exp(_log_softmax(LOGITS)) - np.eye(3)[TARGET]) / 4
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)


def test_cross_entropy_class_weights_and_ignore_index():
    w = np.array([1.0, 2.0, 0.5])
    target = np.array([0, 2, -100, 2])
    loss = F.cross_entropy(_t(LOGITS), agk.tensor(target), weight=_t(w))
    keep = target != -100
    picked = -_log_softmax(LOGITS)[np.arange(4)[keep], target[keep]]
    kept_w = w[target[keep]]
    np.testing.assert_allclose(loss.item(), (picked * kept_w).sum() / kept_w.sum())
    none = F.cross_entropy(_t(LOGITS), agk.tensor(target), reduction="none", ignore_index=-100)
    assert none.numpy()[2] == 0.0


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_over_spatial_dims_with_weights_and_ignored_targets(reduction):
    """(N, C, d1, d2) input: classes along dim 1, one target per position (NllLoss2D)."""
    x = RNG.normal(size=(2, 3, 2, 4))
    target = RNG.integers(0, 3, size=(2, 2, 4))
    target[0, 1, 2] = target[1, 0, 0] = -100
    w = np.array([0.5, 2.0, 1.0])
    loss = F.nll_loss(_t(x, grad=True), agk.tensor(target), weight=_t(w), reduction=reduction)
    keep = target != -100
    safe = np.where(keep, target, 0)
    picked = np.take_along_axis(x, safe[:, None], 1)[:, 0]  # x[n, t[n, i, j], i, j]
    w_t = np.where(keep, w[safe], 0.0)
    losses = -picked * w_t
    expected = losses.sum() / w_t.sum() if reduction == "mean" else _reduce(losses, reduction)
    np.testing.assert_allclose(loss.detach().numpy(), expected, rtol=1e-12)
    assert loss.grad_fn.name() == "NllLoss2DBackward0"
    assert agk.autograd.gradcheck(
        lambda t: F.nll_loss(t, agk.tensor(target), weight=_t(w), reduction=reduction),
        (_t(x, grad=True),),
    )


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", [agk.float32, agk.float64])
def test_nll_loss_without_weights_matches_the_weighted_path_exactly(reduction, dtype):
    """No weight and no ignored target takes a shortcut; weights of one take the general
    path. Values and gradients must agree to the last bit."""
    x = RNG.normal(size=(6, 5))
    target = agk.tensor(RNG.integers(0, 5, size=6))
    results = []
    for weight in (None, agk.ones(5, dtype=dtype)):
        inp = agk.tensor(x, dtype=dtype, requires_grad=True)
        loss = F.nll_loss(inp, target, weight=weight, reduction=reduction)
        loss.backward(agk.ones_like(loss))
        results.append((loss.detach().numpy(), inp.grad.numpy()))
    (fast_loss, fast_grad), (general_loss, general_grad) = results
    assert fast_loss.dtype == general_loss.dtype == dtype.numpy
    np.testing.assert_array_equal(fast_loss, general_loss)
    np.testing.assert_array_equal(fast_grad, general_grad)


def test_nll_loss_of_one_sample_takes_classes_along_dim_0():
    x = _t(RNG.normal(size=(4,)), grad=True)
    loss = F.nll_loss(x, agk.tensor(2))
    np.testing.assert_allclose(loss.item(), -x.detach().numpy()[2])
    loss.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, -1.0, 0.0])


def test_cross_entropy_all_ignored_is_nan():
    loss = F.cross_entropy(_t(LOGITS), agk.tensor([5, 5, 5, 5]), ignore_index=5)
    assert np.isnan(loss.item())


def test_cross_entropy_label_smoothing():
    eps = 0.2
    loss = F.cross_entropy(_t(LOGITS), agk.tensor(TARGET), label_smoothing=eps)
    smooth_target = np.eye(3)[TARGET] * (1 - eps) + eps / 3
    expected = -(smooth_target * _log_softmax(LOGITS)).sum(1).mean()
    np.testing.assert_allclose(loss.item(), expected, rtol=1e-12)
    assert loss.grad_fn is None  # no input required grad
    x = _t(LOGITS, grad=True)
    assert agk.autograd.gradcheck(
        lambda t: F.cross_entropy(t, agk.tensor(TARGET), label_smoothing=eps), (x,)
    )


def test_cross_entropy_with_probabilities():
    probs = np.exp(_log_softmax(RNG.normal(size=(4, 3))))
    loss = F.cross_entropy(_t(LOGITS, grad=True), _t(probs))
    np.testing.assert_allclose(loss.item(), -(probs * _log_softmax(LOGITS)).sum(1).mean())
    x = _t(LOGITS, grad=True)
    assert agk.autograd.gradcheck(
        lambda t: F.cross_entropy(t, _t(probs), label_smoothing=0.1), (x,)
    )
    # float targets of another shape are class indices to PyTorch 2.13, so its nll check speaks
    with pytest.raises(RuntimeError, match=r"0D or 1D target tensor expected, multi-target not"):
        F.cross_entropy(_t(LOGITS), _t(probs[:, :2]))


def test_cross_entropy_single_sample_and_spatial_dims():
    single = F.cross_entropy(_t(LOGITS[0]), agk.tensor(2))
    np.testing.assert_allclose(single.item(), -_log_softmax(LOGITS[0], 0)[2])
    x = RNG.normal(size=(2, 3, 4))
    target = np.array([[0, 1, 2, 1], [2, 2, 0, 1]])
    loss = F.cross_entropy(_t(x, grad=True), agk.tensor(target))
    picked = np.take_along_axis(_log_softmax(x, 1), target[:, None], 1)
    np.testing.assert_allclose(loss.item(), -picked.mean())
    assert loss.grad_fn.name() == "NllLoss2DBackward0"


@pytest.mark.parametrize(
    "call, error, text",
    [
        (
            lambda: F.nll_loss(_t(LOGITS), agk.tensor([0, 1, 7, 0])),
            IndexError,
            "Target 7 is out of bounds.",
        ),
        (
            lambda: F.nll_loss(_t(LOGITS), agk.tensor([0, 1])),
            ValueError,
            r"Expected input batch_size \(4\) to match target batch_size \(2\).",
        ),
        (
            lambda: F.nll_loss(_t(LOGITS), agk.tensor([0.0, 1.0, 2.0, 0.0])),
            RuntimeError,
            "expected target dtype to be Long or Byte, but got Float",
        ),
        (
            lambda: F.cross_entropy(_t(LOGITS), agk.tensor(TARGET), reduction="avg"),
            ValueError,
            "avg is not a valid value for reduction",
        ),
        (
            lambda: F.cross_entropy(_t(LOGITS), agk.tensor(TARGET), label_smoothing=1.5),
            RuntimeError,
            "label_smoothing must be between 0.0 and 1.0. Got: 1.5",
        ),
    ],
)
def test_classification_loss_errors(call, error, text):
    with pytest.raises(error, match=text):
        call()


def test_nll_loss_on_log_probabilities():
    logp = _log_softmax(LOGITS)
    loss = nn.NLLLoss(reduction="sum")(_t(logp), agk.tensor(TARGET))
    np.testing.assert_allclose(loss.item(), -logp[np.arange(4), TARGET].sum())


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy(reduction):
    p, y = RNG.uniform(0.05, 0.95, size=(3, 2)), RNG.uniform(size=(3, 2))
    w = RNG.uniform(0.5, 2, size=2)
    ref = -w * (y * np.log(p) + (1 - y) * np.log(1 - p))
    loss = nn.BCELoss(weight=_t(w), reduction=reduction)(_t(p), _t(y))
    np.testing.assert_allclose(loss.numpy(), _reduce(ref, reduction), rtol=1e-12)


def test_binary_cross_entropy_clamps_the_log_and_checks_range():
    loss = F.binary_cross_entropy(_t([0.0, 1.0]), _t([1.0, 0.0]), reduction="none")
    assert loss.tolist() == [100.0, 100.0]
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(_t([1.5]), _t([1.0]))
    with pytest.raises(
        ValueError,
        match=r"Using a target size \(autogradkit.Size\(\[1\]\)\) "
        "that is different to the input size",
    ):
        F.binary_cross_entropy(_t([0.5, 0.5]), _t([1.0]))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_with_logits_matches_bce_of_sigmoid(reduction):
    x, y = RNG.normal(size=(3, 2)) * 3, RNG.uniform(size=(3, 2))
    pos = RNG.uniform(0.5, 3, size=2)
    s = 1 / (1 + np.exp(-x))
    ref = -(pos * y * np.log(s) + (1 - y) * np.log(1 - s))
    loss = nn.BCEWithLogitsLoss(reduction=reduction, pos_weight=_t(pos))(_t(x), _t(y))
    np.testing.assert_allclose(loss.numpy(), _reduce(ref, reduction), rtol=1e-10)
    assert nn.BCEWithLogitsLoss()(_t(x, grad=True), _t(y)).grad_fn.name() == (
        "BinaryCrossEntropyWithLogitsBackward0"
    )


def test_bce_with_logits_is_stable_for_large_logits():
    loss = F.binary_cross_entropy_with_logits(
        _t([1000.0, -1000.0]), _t([0.0, 1.0]), reduction="none"
    )
    assert loss.tolist() == [1000.0, 1000.0]
    with pytest.raises(
        ValueError,
        match=r"Target size \(autogradkit.Size\(\[1\]\)\) must be "
        r"the same as input size \(autogradkit.Size\(\[2\]\)\)",
    ):
        F.binary_cross_entropy_with_logits(_t([1.0, 2.0]), _t([1.0]))


@pytest.mark.parametrize(
    "loss_fn, make_target",
    [
        (
            lambda x, t: F.cross_entropy(x, t, weight=_t([1.0, 2.0, 0.5]), reduction="sum"),
            lambda: agk.tensor(TARGET),
        ),
        (lambda x, t: F.cross_entropy(x, t, ignore_index=1), lambda: agk.tensor(TARGET)),
        (
            lambda x, t: F.binary_cross_entropy(x.sigmoid(), t, weight=_t([1.0, 2.0, 3.0])),
            lambda: _t(RNG.uniform(size=(4, 3))),
        ),
        (
            lambda x, t: F.binary_cross_entropy_with_logits(x, t, pos_weight=_t([1.0, 2.0, 3.0])),
            lambda: _t(RNG.uniform(size=(4, 3))),
        ),
        (lambda x, t: F.l1_loss(x, t, reduction="sum"), lambda: _t(RNG.normal(size=(4, 3)))),
    ],
)
def test_loss_gradients_pass_gradcheck(loss_fn, make_target):
    target = make_target()
    assert agk.autograd.gradcheck(lambda x: loss_fn(x, target), (_t(LOGITS, grad=True),))


def test_loss_module_reprs():
    assert [
        repr(m)
        for m in (
            nn.MSELoss(),
            nn.L1Loss(reduction="sum"),
            nn.CrossEntropyLoss(),
            nn.NLLLoss(),
            nn.BCELoss(),
            nn.BCEWithLogitsLoss(),
        )
    ] == [
        "MSELoss()",
        "L1Loss()",
        "CrossEntropyLoss()",
        "NLLLoss()",
        "BCELoss()",
        "BCEWithLogitsLoss()",
    ]
