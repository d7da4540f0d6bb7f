"""Ops that move or copy elements: views, reshapes, copies and dtype changes (joining
tensors and cutting them apart: ``joining.py``)."""

from __future__ import annotations

import numpy as np

from .._shape import normalize_dim, normalize_dims
from ..autograd.engine import Function

__all__ = (
    "ViewBackward0 ReshapeAliasBackward0 UnsafeViewBackward0 PermuteBackward0 "
    "TransposeBackward0 TBackward0 ExpandBackward0 SqueezeBackward0 SqueezeBackward1 "
    "SqueezeBackward2 SqueezeBackward4 UnsqueezeBackward0 FlipBackward0 CopyBackwards "
    "CloneBackward0 ToCopyBackward0"
).split()


class _View(Function):
    """out = x viewed with a new shape (no copy);  dx = g reshaped back"""

    is_view = True
    saved_values = ("self_sym_sizes",)

    @staticmethod
    def forward(ctx, x, *, shape):
        ctx.self_sym_sizes = x.shape
        try:
            return np.reshape(x, shape, copy=False)
        except ValueError:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            ) from None

    @staticmethod
    def backward(ctx, g):
        return np.reshape(g, ctx.self_sym_sizes)


class ViewBackward0(_View):
    """``view(shape)``"""


class ReshapeAliasBackward0(_View):
    """reshape of a non-contiguous x that can still be a view: PyTorch names it apart"""


class UnsafeViewBackward0(_View):
    """out = x reshaped, not tracked as a view (reshape's copy, matmul's result);
    dx = g reshaped back"""

    is_view = False

    @staticmethod
    def forward(ctx, x, *, shape):
        ctx.self_sym_sizes = x.shape
        return np.reshape(np.ascontiguousarray(x), shape)


class PermuteBackward0(Function):
    """out = x with its dims reordered;  dx = g with the inverse order"""

    is_view = True
    saved_values = ("dims",)

    @staticmethod
    def forward(ctx, x, *, dims):
        ctx.dims = dims  # as given (PyTorch keeps -1 as -1)
        if len(dims) != x.ndim:  # (PyTorch's words, sparse_coo and all)
            raise RuntimeError(
                "permute(sparse_coo): number of dimensions in the tensor input does not match "
                "the length of the desired ordering of dimensions i.e. input.dim() = "
                f"{x.ndim} is not equal to len(dims) = {len(dims)}"
            )
        axes = tuple(normalize_dim(d, x.ndim) for d in dims)
        if len(set(axes)) != len(axes):
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        ctx.inverse = tuple(np.argsort(axes))
        return np.transpose(x, axes)

    @staticmethod
    def backward(ctx, g):
        return np.transpose(g, ctx.inverse)


class TransposeBackward0(Function):
    """out = x with dims d0 and d1 swapped;  dx = g swapped back"""

    is_view = True
    saved_values = ("dim0", "dim1")

    @staticmethod
    def forward(ctx, x, *, dim0, dim1):
        ctx.dim0, ctx.dim1 = dim0, dim1
        ctx.dims = (normalize_dim(dim0, x.ndim), normalize_dim(dim1, x.ndim))
        return np.swapaxes(x, *ctx.dims)

    @staticmethod
    def backward(ctx, g):
        return np.swapaxes(g, *ctx.dims)


class TBackward0(Function):
    """out = x.t() (a matrix transposed);  dx = g.t()"""

    is_view = True

    @staticmethod
    def forward(ctx, x):
        return x.T  # an array's .T: the same view as np.transpose, without its wrapper

    @staticmethod
    def backward(ctx, g):
        return np.transpose(g)  # g may be a Tensor (create_graph): keep TBackward0


class ExpandBackward0(Function):
    """out = x broadcast to a larger shape;  dx = g (the engine sums it back to x's shape)"""

    is_view = True
    saved_values = ("self_sym_sizes",)

    @staticmethod
    def forward(ctx, x, *, shape):
        ctx.self_sym_sizes = x.shape
        return np.broadcast_to(x, shape)

    @staticmethod
    def backward(ctx, g):
        return g


class _Squeeze(Function):
    """out = x without size-1 dims;  dx = g reshaped back"""

    is_view = True
    saved_values = ("dim", "self_sym_sizes")

    @staticmethod
    def forward(ctx, x, *, dims=None):
        ctx.self_sym_sizes, ctx.dim = x.shape, dims
        axes = normalize_dims(dims, x.ndim)  # None (every size-1 dim), else those of size 1
        if axes is not None:
            axes = tuple(a for a in axes if x.shape[a] == 1)
        return np.squeeze(x, axis=axes)

    @staticmethod
    def backward(ctx, g):
        return np.reshape(g, ctx.self_sym_sizes)


class SqueezeBackward0(_Squeeze):
    """out = x without its size-1 dims (``squeeze()``)"""

    saved_values = ("self_sym_sizes",)


class SqueezeBackward1(_Squeeze):
    """out = x without dim ``dims`` if its size is 1 (``squeeze(dim)``)"""


class SqueezeBackward2(_Squeeze):
    """out = x without those of ``dims`` whose size is 1 (``squeeze(dims)``)"""


class SqueezeBackward4(_Squeeze):
    """``squeeze_(dim)``: what PyTorch's matmul of a vector and a matrix records"""


class UnsqueezeBackward0(Function):
    """out = x with a new size-1 dim;  dx = g with that dim removed"""

    is_view = True
    saved_values = ("dim",)

    @staticmethod
    def forward(ctx, x, *, dim):
        ctx.dim, ctx.axis = dim, normalize_dim(dim, x.ndim + 1)
        return np.expand_dims(x, ctx.axis)

    @staticmethod
    def backward(ctx, g):
        return np.squeeze(g, axis=ctx.axis)


class FlipBackward0(Function):
    """out = x reversed along dims (a copy);  dx = g reversed back"""

    saved_values = ("dims",)

    @staticmethod
    def forward(ctx, x, *, dims):
        ctx.dims, ctx.axes = dims, normalize_dims(dims, x.ndim)  # (PyTorch's errors)
        return np.flip(x, ctx.axes).copy()

    @staticmethod
    def backward(ctx, g):
        return np.flip(g, ctx.axes)


class CopyBackwards(Function):
    """out = src broadcast into x's shape and dtype (``x.copy_(src)``);  dx = 0,  dsrc = g"""

    node_name = "CopyBackwards"
    promotes = False

    @staticmethod
    def forward(ctx, x, src):
        return np.broadcast_to(src, x.shape).astype(x.dtype)

    @staticmethod
    def backward(ctx, g):
        return np.zeros_like(g), g  # x's old value was overwritten: a zero gradient


class CloneBackward0(Function):
    """out = a copy of x (row-major with ``contiguous``, else laid out like x);  dx = g"""

    @staticmethod
    def forward(ctx, x, *, contiguous=False):
        # PyTorch's clone keeps the order of x's dims in memory, unless x was expanded
        keep = not contiguous and all(st or n == 1 for st, n in zip(x.strides, x.shape))
        return np.array(x, order="K" if keep else "C")

    @staticmethod
    def backward(ctx, g):
        return g


class ToCopyBackward0(Function):
    """out = x converted to another dtype;  dx = g (the engine casts it back to x's dtype)"""

    @staticmethod
    def forward(ctx, x, *, dtype):
        return x.astype(dtype)

    @staticmethod
    def backward(ctx, g):
        return g
