"""Joining tensors (``cat``, ``stack``) and cutting one apart (``split``, ``unbind``)."""

from __future__ import annotations

import numpy as np

from .._shape import normalize_dim
from ..autograd.engine import Function

__all__ = (
    "CatBackward0 StackBackward0 SplitBackward0 SplitWithSizesBackward0 UnbindBackward0"
).split()


class CatBackward0(Function):
    """out = xs joined along dim;  each dx = its own slice of g"""

    saved_values = ("dim",)

    @staticmethod
    def forward(ctx, *xs, dim=0):
        ctx.dim, ctx.axis = dim, normalize_dim(dim, xs[0].ndim)
        ctx.sizes = [x.shape[ctx.axis] for x in xs]
        return np.concatenate(xs, axis=ctx.axis)

    @staticmethod
    def backward(ctx, g):
        ends = np.cumsum(ctx.sizes)
        lead = (slice(None),) * ctx.axis
        return tuple(g[lead + (slice(e - s, e),)] for s, e in zip(ctx.sizes, ends))


class StackBackward0(Function):
    """out = xs stacked along a new dim;  each dx = g at its position of that dim"""

    saved_values = ("dim",)

    @staticmethod
    def forward(ctx, *xs, dim=0):
        ctx.dim, ctx.axis, ctx.count = dim, normalize_dim(dim, xs[0].ndim + 1), len(xs)
        for i, x in enumerate(xs):
            if x.shape != xs[0].shape:
                raise RuntimeError(
                    "stack expects each tensor to be equal size, but got "
                    f"{list(xs[0].shape)} at entry 0 and {list(x.shape)} at entry {i}"
                )
        return np.stack(xs, axis=ctx.axis)

    @staticmethod
    def backward(ctx, g):
        lead = (slice(None),) * ctx.axis
        return tuple(g[lead + (i,)] for i in range(ctx.count))


class _Split(Function):
    """outs = x cut into pieces along dim;  dx = the pieces' gradients (or zeros) joined"""

    is_view = True  # the pieces share x's memory: PyTorch refuses to change them in place

    @staticmethod
    def forward(ctx, x, *, sizes, dim, split_size=None):
        ctx.dim, ctx.axis, ctx.self_sym_sizes = dim, normalize_dim(dim, x.ndim), x.shape
        ctx.split_size, ctx.split_sizes = split_size, sizes
        if split_size is None:  # split([sizes]): PyTorch checks them (split(size) made them)
            _check_split_sizes(sizes, dim, x.shape[ctx.axis])
        return tuple(np.split(x, np.cumsum(sizes)[:-1], axis=ctx.axis))

    @staticmethod
    def backward(ctx, *grads):
        return np.concatenate(grads, axis=ctx.axis)


def _check_split_sizes(sizes, dim, length) -> None:
    if any(size < 0 for size in sizes):
        raise RuntimeError(
            "split_with_sizes expects split_sizes have only non-negative entries, but got "
            f"split_sizes={list(sizes)}"
        )
    if sum(sizes) != length:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {length} (input tensor's size "
            f"at dimension {dim}), but got split_sizes={list(sizes)}"
        )


class SplitBackward0(_Split):
    """``split(size)``"""

    saved_values = ("dim", "self_sym_sizes", "split_size")


class SplitWithSizesBackward0(_Split):
    """``split([sizes])``: the same cut, which PyTorch records under its own name"""

    saved_values = ("dim", "self_sym_sizes", "split_sizes")


class UnbindBackward0(Function):
    """outs = x[i] for each i along dim;  dx = the outputs' gradients stacked back"""

    is_view = True  # as split's
    saved_values = ("dim",)

    @staticmethod
    def forward(ctx, x, *, dim):
        ctx.dim, ctx.axis = dim, normalize_dim(dim, x.ndim)
        return tuple(np.moveaxis(x, ctx.axis, 0))

    @staticmethod
    def backward(ctx, *grads):
        return np.stack(grads, axis=ctx.axis)
