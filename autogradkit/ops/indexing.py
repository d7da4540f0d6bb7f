"""Indexing: reading ``x[index]`` (copies and views) and writing ``x[index] = value``."""

from __future__ import annotations

import numpy as np

from ..autograd.function import Function


class Index(Function):
    """out = x[index] (advanced indexing copies);  dx = zeros with g added at index"""

    @staticmethod
    def forward(ctx, x, *, index):
        ctx.shape, ctx.index = x.shape, index
        return x[index]

    @staticmethod
    def backward(ctx, g):
        return IndexPut.call(g, shape=ctx.shape, index=ctx.index)


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
    """out = zeros(shape) with x added at index (repeats add up);  dx = g[index]"""

    @staticmethod
    def forward(ctx, x, *, shape, index):
        ctx.index, out = index, np.zeros(shape, x.dtype)
        np.add.at(out, index, x)
        return out

    @staticmethod
    def backward(ctx, g):
        return Index.call(g, index=ctx.index)


class CopySlices(Function):
    """out = x with x[index] = value (what ``x[index] = value`` records);
    dx = g outside index,  dvalue = g[index]"""

    node_name = "CopySlices"  # PyTorch's name for this node has no "Backward"

    @staticmethod
    def forward(ctx, x, value, *, index):
        out = np.array(x)
        out[index] = value
        ctx.index, ctx.keep = index, np.ones(x.shape, x.dtype)
        ctx.keep[index] = 0
        return out

    @staticmethod
    def backward(ctx, g):
        return g * ctx.keep, g[ctx.index]
