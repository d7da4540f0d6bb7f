"""Indexing and writing: reading ``x[index]`` (copies and views), writing
``x[index] = values``, ``fill_`` and ``zero_`` (``CopySlices``, the node of writes through a
view, and ``AsStridedBackward0``, a view made again after one, are in ``_inplace_views.py``)."""

from __future__ import annotations

import numpy as np

from ..autograd.engine import Function

__all__ = (
    "IndexBackward0 SelectBackward0 SliceBackward0 IndexPutBackward0 "
    "ZeroBackward0 FillBackward2 FillBackward3"
).split()

_END = 2**63 - 1  # an open slice end, as PyTorch keeps it (INT64_MAX)


class _Index(Function):
    """out = x[index];  dx = zeros with g added at index (``describe`` notes the index)"""

    @classmethod
    def forward(cls, ctx, x, *, index, **geometry):
        ctx.self_sym_sizes, ctx.dtype, ctx.region = x.shape, x.dtype, index
        cls.describe(ctx, index, **geometry)
        return x[index]

    @staticmethod
    def backward(ctx, g):
        zeros = np.zeros(ctx.self_sym_sizes, ctx.dtype)
        return IndexPutBackward0.call(zeros, g, index=_region(ctx), accumulate=True)


class IndexBackward0(_Index):
    """out = x[index] (advanced indexing copies);  dx = zeros with g added at index"""

    saved_names, saved_values = ("*indices",), ("self_sym_sizes",)  # *: a list of tensors

    @staticmethod
    def describe(ctx, index) -> None:
        """Save what PyTorch shows as ``_saved_indices``: the index arrays, None for a slice."""
        ctx.save_for_backward(*_index_arrays(index))


def _index_arrays(index) -> tuple:
    """The arrays of an index, None for its slices, numbers and ``...``: what PyTorch saves."""
    return tuple(i if isinstance(i, np.ndarray) else None for i in index)


def _region(ctx) -> tuple:
    """The index, its arrays read back from what forward saved (no saves: views, kept whole)."""
    saved = ctx.saved_tensors
    if len(saved) != len(ctx.region):
        return ctx.region
    return tuple(r if s is None else np.asarray(s) for r, s in zip(ctx.region, saved))


class SelectBackward0(_Index):
    """out = x[..., i, ...] (one position of one dim, a view);  dx = zeros with g at i"""

    is_view = True
    saved_names, saved_values = (), ("dim", "index", "self_sym_sizes")

    @staticmethod
    def describe(ctx, index) -> None:  # index: (:, ..., :, i, ...)
        ctx.dim, ctx.index = len(index) - 2, index[-2]


class SliceBackward0(_Index):
    """out = x[..., a:b:s, ...] (a view);  dx = zeros with g in the slice"""

    is_view = True
    saved_names, saved_values = (), ("dim", "end", "self_sym_sizes", "start", "step")

    @staticmethod
    def describe(ctx, index) -> None:  # index: (:, ..., :, a:b:s, ...)
        item = index[-2]
        ctx.dim, ctx.step = len(index) - 2, 1 if item.step is None else item.step
        ctx.start = 0 if item.start is None else item.start
        ctx.end = _END if item.stop is None else item.stop


class IndexPutBackward0(Function):
    """out = x with values written at index (added there with ``accumulate``, so repeats add
    up);  dx = g (0 at index unless accumulating),  dvalues = g[index]"""

    saved_names, saved_values = ("*indices",), ("accumulate",)

    @staticmethod
    def forward(ctx, x, values, *, index, accumulate=False):
        ctx.region, ctx.accumulate = index, accumulate
        ctx.save_for_backward(*_index_arrays(index))
        out = np.array(x)
        if accumulate:
            np.add.at(out, index, values)
        else:
            out[index] = values  # with repeated indices the last write wins, as in PyTorch
        return out

    @staticmethod
    def backward(ctx, g):
        region = _region(ctx)
        gx = g if ctx.accumulate else IndexPutBackward0.call(g, 0, index=region)
        return gx, IndexBackward0.call(g, index=region)


class ZeroBackward0(Function):
    """out = zeros like x (``zero_``);  dx = 0"""

    @staticmethod
    def forward(ctx, x):
        return np.zeros_like(x)

    @staticmethod
    def backward(ctx, g):
        return np.zeros_like(g)


class _Fill(Function):
    """out = x filled with a value (``fill_``);  dx = 0,  dvalue = sum(g)"""

    promotes = False  # the value takes x's dtype

    @staticmethod
    def forward(ctx, x, value):
        if np.ndim(value) != 0:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor "
                f"with {np.ndim(value)} dimensions."
            )
        return np.full_like(x, value)

    @staticmethod
    def backward(ctx, g):
        return np.zeros_like(g), np.sum(g) if ctx.needs_input_grad[1] else None


class FillBackward2(_Fill):
    """out = x filled with a number (fill_.Scalar)"""


class FillBackward3(_Fill):
    """out = x filled with a 0-dim tensor's value (fill_.Tensor);  dx = 0,  dvalue = sum(g)"""
