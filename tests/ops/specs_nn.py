"""Specs for the loss and activation primitives in ``autogradkit/ops/nn.py`` that are not in
``specs.py`` (owned with the nn package: add one entry for every new op there).

The generic checks of ``test_ops.py`` run over them from ``tests/nn/test_nn_ops.py``.
"""

from __future__ import annotations

import numpy as np

from .specs import OpSpec

_TARGET = [0, 2, 1]  # class indices for a (3, 4) input
_TARGET_2D = [[0, 2], [1, 1]]  # for a (2, 3, 2) input: classes along dim 1


def _F(lib):
    return lib.nn.functional


def _nll_ref(x, target, axis=1):
    picked = np.take_along_axis(x, np.expand_dims(np.array(target), axis), axis)
    return -picked.mean()


def _bce_ref(x, y):
    return -np.mean(y * np.log(x) + (1 - y) * np.log(1 - x))


def _bce_logits_ref(x, y):
    s = 1 / (1 + np.exp(-x))
    return -np.mean(y * np.log(s) + (1 - y) * np.log(1 - s))


NN_SPECS: list = [
    OpSpec(
        "LeakyRelu",
        lambda t, x: _F(t).leaky_relu(x, 0.2),
        lambda x: np.where(x > 0, x, 0.2 * x),
        ((7,),),
    ),
    OpSpec(
        "MseLoss",
        lambda t, x, y: _F(t).mse_loss(x, y),
        lambda x, y: np.mean((x - y) ** 2),
        ((3, 4), (3, 4)),
    ),
    OpSpec(
        "MseLoss",
        lambda t, x, y: _F(t).mse_loss(x, y, reduction="none"),
        lambda x, y: (x - y) ** 2,
        ((3, 2), (3, 2)),
        id="MseLoss_none",
    ),
    OpSpec(
        "NllLoss",
        lambda t, x: _F(t).nll_loss(x, t.tensor(_TARGET)),
        lambda x: _nll_ref(x, _TARGET),
        ((3, 4),),
    ),
    OpSpec(
        "NllLoss",
        lambda t, x: _F(t).nll_loss(x, t.tensor(_TARGET), reduction="sum"),
        lambda x: 3 * _nll_ref(x, _TARGET),
        ((3, 4),),
        id="NllLoss_sum",
    ),
    OpSpec(
        "NllLoss2D",
        lambda t, x: _F(t).nll_loss(x, t.tensor(_TARGET_2D)),
        lambda x: _nll_ref(x, _TARGET_2D),
        ((2, 3, 2),),
    ),
    OpSpec(
        "BinaryCrossEntropy",
        lambda t, x, y: _F(t).binary_cross_entropy(x, y),
        _bce_ref,
        ((2, 3), (2, 3)),
        0.1,
        0.9,
    ),
    OpSpec(
        "BinaryCrossEntropyWithLogits",
        lambda t, x, y: _F(t).binary_cross_entropy_with_logits(x, y),
        _bce_logits_ref,
        ((2, 3), (2, 3)),
        0.1,
        0.9,
    ),
]
