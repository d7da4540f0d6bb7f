"""Indexing: reading ``x[index]`` (copies and views) and writing ``x[index] = values``
(``CopySlices``, the node of writes through a view, is in ``autograd.function``)."""

from __future__ import annotations

import numpy as np

from ..autograd.function import Function


class Index(Function):
    """out = x[index] (advanced indexing copies);  dx = zeros with g added at index"""

    @staticmethod
    def forward(ctx, x, *, index):
        ctx.shape, ctx.dtype, ctx.index = x.shape, x.dtype, index
        return x[index]

    @staticmethod
    def backward(ctx, g):
        zeros = np.zeros(ctx.shape, ctx.dtype)
        return IndexPut.call(zeros, g, index=ctx.index, accumulate=True)


class Select(Index):
    """out = x[..., i, ...] (one position of one dim, a view);  dx = zeros with g at i"""

    is_view = True


class Slice(Index):
    """out = x[..., a:b:s, ...] (a view);  dx = zeros with g in the slice"""

    is_view = True


class AsStrided(Index):
    """out = x[index], a view re-made after an in-place op on it;  dx = zeros with g there"""

    is_view = True


class IndexPut(Function):
    """out = x with values written at index (added there with ``accumulate``, so repeats add
    up);  dx = g (0 at index unless accumulating),  dvalues = g[index]"""

    @staticmethod
    def forward(ctx, x, values, *, index, accumulate=False):
        ctx.index, ctx.accumulate = index, accumulate
        out = np.array(x)
        if accumulate:
            np.add.at(out, index, values)
        else:
            out[index] = values  # with repeated indices the last write wins, as in PyTorch
        return out

    @staticmethod
    def backward(ctx, g):
        gx = g if ctx.accumulate else IndexPut.call(g, 0, index=ctx.index)
        return gx, Index.call(g, index=ctx.index)
