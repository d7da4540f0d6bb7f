"""softmax and log_softmax: primitives, because composing them from exp and sum is numerically
unsafe (``exp`` overflows; ``log`` of a rounded-to-zero probability is ``-inf``)."""

from __future__ import annotations

import numpy as np

from .._shape import normalize_dim
from ..autograd.engine import Function

__all__ = ["LogSoftmaxBackward0", "SoftmaxBackward0"]


class LogSoftmaxBackward0(Function):
    """out = x - logsumexp(x, dim);  dx = g - exp(out) * sum(g, dim)"""

    saved_names, saved_values = ("result",), ("dim",)

    @staticmethod
    def forward(ctx, x, *, dim):
        ctx.dim, ctx.axis = dim, normalize_dim(dim, x.ndim)
        # forward gets arrays: their methods skip NumPy's Python-level np.max/np.sum wrappers
        shifted = x - x.max(axis=ctx.axis, keepdims=True)  # exp cannot overflow
        out = shifted - np.log(np.exp(shifted).sum(axis=ctx.axis, keepdims=True))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g - np.exp(out) * np.sum(g, axis=ctx.axis, keepdims=True)


class SoftmaxBackward0(Function):
    """out = exp(x) / sum(exp(x), dim);  dx = out * (g - sum(g * out, dim))"""

    saved_names, saved_values = ("result",), ("dim",)

    @staticmethod
    def forward(ctx, x, *, dim):
        ctx.dim, ctx.axis = dim, normalize_dim(dim, x.ndim)
        e = np.exp(x - x.max(axis=ctx.axis, keepdims=True))
        out = e / e.sum(axis=ctx.axis, keepdims=True)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return out * (g - np.sum(g * out, axis=ctx.axis, keepdims=True))
