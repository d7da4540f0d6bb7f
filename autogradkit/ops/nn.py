"""Primitives that are numerically unsafe to compose (softmax family, losses)."""

from __future__ import annotations

import numpy as np

from ..autograd.function import Function


class LogSoftmax(Function):
    """out = x - logsumexp(x, dim);  dx = g - exp(out) * sum(g, dim)"""

    @staticmethod
    def forward(ctx, x, *, dim):
        shifted = x - np.max(x, axis=dim, keepdims=True)  # exp cannot overflow
        out = shifted - np.log(np.sum(np.exp(shifted), axis=dim, keepdims=True))
        ctx.dim = dim
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g - np.exp(out) * np.sum(g, axis=ctx.dim, keepdims=True)


class Softmax(Function):
    """out = exp(x) / sum(exp(x), dim);  dx = out * (g - sum(g * out, dim))"""

    @staticmethod
    def forward(ctx, x, *, dim):
        e = np.exp(x - np.max(x, axis=dim, keepdims=True))
        out = e / np.sum(e, axis=dim, keepdims=True)
        ctx.dim = dim
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return out * (g - np.sum(g * out, axis=ctx.dim, keepdims=True))
