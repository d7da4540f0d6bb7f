"""The activation ``nn.functional`` records as a node of its own, ``LeakyReluBackward0``
(``relu``, ``sigmoid`` and ``tanh`` are Tensor methods: their ops are the core's)."""

from __future__ import annotations

import numpy as np

from ...autograd.engine import Function

__all__ = ["LeakyReluBackward0"]


class LeakyReluBackward0(Function):
    """out = x if x > 0 else slope * x;  dx = g if x > 0 else slope * g"""

    saved_names, saved_values = ("self",), ("negative_slope",)

    @staticmethod
    def forward(ctx, x, *, negative_slope=0.01):
        ctx.negative_slope = negative_slope
        ctx.save_for_backward(x)
        return np.where(x > 0, x, x * x.dtype.type(negative_slope))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return np.where(x > 0, g, g * ctx.negative_slope)
