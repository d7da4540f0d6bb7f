"""Reductions other than sum and mean (``arithmetic.py``): product, logsumexp, max, min."""

from __future__ import annotations

import numpy as np

from .._shape import normalize_dim, normalize_dims
from ..autograd.engine import Function
from .arithmetic import _as_dims, _unsqueezed

__all__ = (
    "ProdBackward0 ProdBackward1 LogsumexpBackward0 MaxBackward0 MaxBackward1 MinBackward0 "
    "MinBackward1"
).split()


class _Prod(Function):
    """out = product of x over dim (dim None: every x);  dx = g * out / x, or where x holds a
    zero, g times the product of the others in its slice (PyTorch's prod_backward)"""

    saved_names, saved_values = ("self", "result"), ("dim", "keepdim")

    @staticmethod
    def forward(ctx, x, *, dim=None, keepdim=False):
        ctx.axes, ctx.keepdim, ctx.dim = normalize_dims(dim, x.ndim), keepdim, dim
        dtype = np.int64 if x.dtype.kind in "biu" else None  # ints multiply as int64
        out = np.asarray(np.prod(x, axis=ctx.axes, keepdims=keepdim, dtype=dtype))
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        g, out = _unsqueezed(ctx, g, out)
        zeros = x == 0
        if not np.any(zeros):
            return g * (out / x)
        if ctx.axes is None and isinstance(x, np.ndarray) and np.count_nonzero(zeros) > 1:
            return np.zeros_like(x)  # PyTorch's shortcut when no graph of this is wanted
        if ctx.axes is None:  # over everything: the same as over one axis of x flattened
            return g * np.reshape(_product_of_others(np.reshape(x, (-1,)), 0), np.shape(x))
        return g * _product_of_others(x, ctx.axes[0])


class ProdBackward1(_Prod):
    """out = product of x over dim (``prod(dim)``)"""


class ProdBackward0(_Prod):
    """out = product of every x (``prod()``);  dx as for ProdBackward1, over every dim"""

    saved_values = ()


def _product_of_others(x, axis: int):
    """For each entry, the product of the other entries of its slice along ``axis`` (works
    with zeros, unlike out / x): the slice repeated once per entry, that entry set to 1."""
    n = np.shape(x)[axis]
    own = np.eye(n, dtype=bool).reshape((n, n) + (1,) * (np.ndim(x) - axis - 1))
    return np.prod(np.where(own, 1, np.expand_dims(x, axis)), axis=axis + 1)


class LogsumexpBackward0(Function):
    """out = log(sum(exp(x), dim));  dx = g * exp(x - out)"""

    quiet_floating_errors = True  # log(0) = -inf for a slice of -inf, as in PyTorch
    saved_names = ("self", "result")
    saved_values = ("dim", "keepdim")

    @staticmethod
    def forward(ctx, x, *, dim, keepdim=False):
        ctx.axes, ctx.keepdim, ctx.dim = normalize_dims(dim, x.ndim), keepdim, _as_dims(dim)
        top = x.max(axis=ctx.axes, keepdims=True)  # shifted first: exp cannot overflow
        top = np.where(np.abs(top) == np.inf, 0, top)  # an infinite max shifts nothing
        out = np.log(np.exp(x - top).sum(axis=ctx.axes, keepdims=True)) + top
        out = out if keepdim else np.squeeze(out, axis=ctx.axes)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        g, out = _unsqueezed(ctx, g, out)
        return g * np.exp(x - out)


class _Extreme(Function):
    """out = max or min of every x (``reduce``);  ties share the gradient equally"""

    saved_names = ("self", "result")

    @classmethod
    def forward(cls, ctx, x):
        out = cls.reduce(x)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        ties = x == out  # ties share the gradient equally, the rest get exact zeros
        return np.where(ties, g / np.sum(ties), np.zeros_like(x))


class MaxBackward1(_Extreme):
    """out = max of every x;  ties share the gradient equally"""

    reduce = staticmethod(np.max)


class MinBackward1(_Extreme):
    """out = min of every x;  ties share the gradient equally"""

    reduce = staticmethod(np.min)


class _ExtremeAlongDim(Function):
    """(values, indices) = max or min of x along dim (``arg``);  dx = g at each slice's first
    extreme"""

    saved_names, saved_values = ("indices",), ("dim", "keepdim", "self_sym_sizes")

    @classmethod
    def forward(cls, ctx, x, *, dim, keepdim=False):
        ctx.self_sym_sizes, ctx.keepdim, ctx.dim = x.shape, keepdim, dim
        ctx.axis = axis = normalize_dim(dim, x.ndim)
        indices = np.expand_dims(cls.arg(x, axis=axis), axis)
        values = np.take_along_axis(x, indices, axis)
        if not keepdim:
            values, indices = values.squeeze(axis), indices.squeeze(axis)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, g, g_indices=None):
        (indices,) = ctx.saved_tensors
        indices = np.asarray(indices)
        if not ctx.keepdim:
            g, indices = np.expand_dims(g, ctx.axis), np.expand_dims(indices, ctx.axis)
        chosen = np.zeros(ctx.self_sym_sizes, bool)  # one True per slice: the first max
        np.put_along_axis(chosen, indices, True, ctx.axis)
        # only the first index of each max gets the gradient (zeros, not g * 0: no -0.)
        return np.where(chosen, g, np.zeros_like(g))


class MaxBackward0(_ExtremeAlongDim):
    """(values, indices) = max(x, dim);  dx = g at each slice's first maximum"""

    arg = staticmethod(np.argmax)


class MinBackward0(_ExtremeAlongDim):
    """(values, indices) = min(x, dim);  dx = g at each slice's first minimum"""

    arg = staticmethod(np.argmin)
