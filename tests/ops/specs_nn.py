"""Specs for nn's own ops (``autogradkit/nn/ops/``: addmm, convolution, pooling, losses,
leaky_relu), which only ``nn.functional`` records: add one entry for every new op there.

The generic checks of ``test_ops.py`` run over them with the core's specs.
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


def _conv_ref(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """A plain loop over output positions (not the kit's window view)."""
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    o, c_in, kh, kw = w.shape
    oh = (xp.shape[2] - dilation * (kh - 1) - 1) // stride + 1
    ow = (xp.shape[3] - dilation * (kw - 1) - 1) // stride + 1
    out = np.zeros((x.shape[0], o, oh, ow))
    per_group = o // groups
    for i in range(oh):
        for j in range(ow):
            rows = slice(i * stride, i * stride + dilation * (kh - 1) + 1, dilation)
            cols = slice(j * stride, j * stride + dilation * (kw - 1) + 1, dilation)
            for k in range(o):
                group = k // per_group
                patch = xp[:, group * c_in : (group + 1) * c_in, rows, cols]
                out[:, k, i, j] = np.sum(patch * w[k], axis=(1, 2, 3))
    return out if b is None else out + b.reshape(1, -1, 1, 1)


def _pool_ref(x, k, stride, padding=0):
    xp = np.pad(
        x, ((0, 0), (0, 0), (padding, padding), (padding, padding)), constant_values=-np.inf
    )
    oh, ow = (xp.shape[2] - k) // stride + 1, (xp.shape[3] - k) // stride + 1
    out = np.zeros(x.shape[:2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride : i * stride + k, j * stride : j * stride + k]
            out[:, :, i, j] = patch.max(axis=(2, 3))
    return out


_CONV_OPTIONS = {"padding": ((1, 1), (1, 1)), "stride": (2, 2), "dilation": (1, 1), "groups": 1}


def _input_grad(lib, g, w):
    from autogradkit.nn.ops.conv import ConvolutionInputGradBackward0

    return ConvolutionInputGradBackward0.apply(g, w, input_shape=(2, 2, 5, 5), **_CONV_OPTIONS)


def _addmm(b, x, w):
    from autogradkit.nn.ops.linear import AddmmBackward0

    return AddmmBackward0.apply(b, x, w)


def _weight_grad(lib, x, g):
    from autogradkit.nn.ops.conv import ConvolutionWeightGradBackward0

    return ConvolutionWeightGradBackward0.apply(x, g, weight_shape=(3, 2, 3, 3), **_CONV_OPTIONS)


NN_SPECS: list = [
    OpSpec(
        "AddmmBackward0",
        lambda t, b, x, w: t.addmm(b, x, w) if t.__name__ == "torch" else _addmm(b, x, w),
        lambda b, x, w: b + x @ w,
        ((4,), (2, 3), (3, 4)),
    ),
    OpSpec(
        "ConvolutionBackward0",
        lambda t, x, w, b: _F(t).conv2d(x, w, b, stride=2, padding=1),
        lambda x, w, b: _conv_ref(x, w, b, stride=2, padding=1),
        ((2, 2, 5, 5), (3, 2, 3, 3), (3,)),
    ),
    OpSpec(
        "ConvolutionBackward0",
        lambda t, x, w: _F(t).conv2d(x, w, padding=2, dilation=2, groups=2),
        lambda x, w: _conv_ref(x, w, padding=2, dilation=2, groups=2),
        ((1, 4, 5, 6), (4, 2, 3, 2)),
        id="Convolution_grouped_dilated",
    ),
    OpSpec(
        "ConvolutionInputGradBackward0",
        _input_grad,
        None,
        ((2, 3, 3, 3), (3, 2, 3, 3)),
        torch=False,
    ),
    OpSpec(
        "ConvolutionWeightGradBackward0",
        _weight_grad,
        None,
        ((2, 2, 5, 5), (2, 3, 3, 3)),
        torch=False,
    ),
    OpSpec(
        "MaxPool2DWithIndicesBackward0",
        lambda t, x: _F(t).max_pool2d(x, 2),
        lambda x: _pool_ref(x, 2, 2),
        ((2, 3, 4, 5),),
    ),
    OpSpec(
        "MaxPool2DWithIndicesBackward0",
        lambda t, x: _F(t).max_pool2d(x, 3, stride=2, padding=1),
        lambda x: _pool_ref(x, 3, 2, 1),
        ((1, 2, 5, 5),),
        id="MaxPool2DWithIndices_padded",
    ),
    OpSpec(
        "MaxPool2DWithIndicesBackward0",
        lambda t, x: _F(t).max_pool2d(x, 2),
        lambda x: _pool_ref(x[None], 2, 2)[0],
        ((3, 4, 6),),
        id="MaxPool2DWithIndices_one_image",  # (C, H, W): no batch dim
    ),
    OpSpec(
        "LeakyReluBackward0",
        lambda t, x: _F(t).leaky_relu(x, 0.2),
        lambda x: np.where(x > 0, x, 0.2 * x),
        ((7,),),
    ),
    OpSpec(
        "MseLossBackward0",
        lambda t, x, y: _F(t).mse_loss(x, y),
        lambda x, y: np.mean((x - y) ** 2),
        ((3, 4), (3, 4)),
    ),
    OpSpec(
        "MseLossBackward0",
        lambda t, x, y: _F(t).mse_loss(x, y, reduction="none"),
        lambda x, y: (x - y) ** 2,
        ((3, 2), (3, 2)),
        id="MseLoss_none",
    ),
    OpSpec(
        "NllLossBackward0",
        lambda t, x: _F(t).nll_loss(x, t.tensor(_TARGET)),
        lambda x: _nll_ref(x, _TARGET),
        ((3, 4),),
    ),
    OpSpec(
        "NllLossBackward0",
        lambda t, x: _F(t).nll_loss(x, t.tensor(_TARGET), reduction="sum"),
        lambda x: 3 * _nll_ref(x, _TARGET),
        ((3, 4),),
        id="NllLoss_sum",
    ),
    OpSpec(
        "NllLoss2DBackward0",
        lambda t, x: _F(t).nll_loss(x, t.tensor(_TARGET_2D)),
        lambda x: _nll_ref(x, _TARGET_2D),
        ((2, 3, 2),),
    ),
    OpSpec(
        "BinaryCrossEntropyBackward0",
        lambda t, x, y: _F(t).binary_cross_entropy(x, y),
        _bce_ref,
        ((2, 3), (2, 3)),
        0.1,
        0.9,
    ),
    OpSpec(
        "BinaryCrossEntropyWithLogitsBackward0",
        lambda t, x, y: _F(t).binary_cross_entropy_with_logits(x, y),
        _bce_logits_ref,
        ((2, 3), (2, 3)),
        0.1,
        0.9,
    ),
]
