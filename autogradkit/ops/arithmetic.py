"""Arithmetic: ``+``, ``-``, ``*``, ``/`` between tensors (and numbers), with broadcasting,
and their sums and means. The ops of the first lessons: ``(a * b).sum().backward()`` runs in
this file and the engine.

Each backward returns the gradient in the output's shape; the engine un-broadcasts it.
"""

from __future__ import annotations

import numpy as np

from .._dtype import scalar_type_name
from .._shape import normalize_dims
from ..autograd.engine import Function
from .scalar import DivBackward1

__all__ = (
    "AddBackward0 SubBackward0 RsubBackward0 RsubBackward1 MulBackward0 DivBackward0 "
    "NegBackward0 SumBackward0 SumBackward1 MeanBackward0 MeanBackward1"
).split()


def _floating(x: np.ndarray) -> np.ndarray:
    """Integer inputs to transcendental ops compute in the default float dtype, as in PyTorch."""
    return x if x.dtype.kind == "f" else x.astype(np.float32)


def _plus_scaled(x, y, alpha):
    """x + alpha * y, rounded once as PyTorch's fused multiply-add rounds it (float32 in
    float64, float64 in long double: NumPy has no fused multiply-add)."""
    if x.dtype.kind in "iub" and isinstance(alpha, float):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    wide = {np.float32: np.float64, np.float64: np.longdouble}.get(x.dtype.type)
    if wide is None:
        return x + alpha * y
    scale = wide(x.dtype.type(alpha))
    return (x.astype(wide) + scale * np.asarray(y).astype(wide)).astype(x.dtype)


class _Addition(Function):
    """What add, sub and rsub share. PyTorch's nodes are unrelated classes: two ops that share
    code share a private base like this one, never subclass each other (the ops of other
    files do the same)."""

    broadcasts = True
    saved_values = ("alpha",)
    alpha = 1  # ctx.alpha: forward notes it only when it is not 1 (the usual case)


class AddBackward0(_Addition):
    """out = x + alpha y;  dx = g,  dy = alpha g"""

    @staticmethod
    def forward(ctx, x, y, *, alpha=1):
        if alpha == 1:
            return x + y
        ctx.alpha = alpha
        return _plus_scaled(x, y, alpha)

    @staticmethod
    def backward(ctx, g):
        return g, g if ctx.alpha == 1 else g * ctx.alpha


class SubBackward0(_Addition):
    """out = x - alpha y (an add of -alpha y);  dx = g,  dy = -alpha g"""

    @staticmethod
    def forward(ctx, x, y, *, alpha=1):
        if alpha == 1:
            return x - y
        ctx.alpha = alpha
        return _plus_scaled(x, y, -alpha)

    @staticmethod
    def backward(ctx, g):
        return g, -g if ctx.alpha == 1 else g * -ctx.alpha


class _Rsub(_Addition):
    """out = y - alpha x (``rsub``): a sub with its inputs swapped"""

    @staticmethod
    def forward(ctx, x, y, *, alpha=1):
        return SubBackward0.forward(ctx, y, x, alpha=alpha)

    @staticmethod
    def backward(ctx, g):
        gy, gx = SubBackward0.backward(ctx, g)
        return gx, gy


class RsubBackward0(_Rsub):
    """out = y - alpha x (``rsub(x, y)``, two tensors)"""


class RsubBackward1(_Rsub):
    """out = number - alpha x (``1 - x``, rsub.Scalar): the number gets no edge"""

    numbers_are_scalars = True


class MulBackward0(Function):
    """out = x * y;  dx = g * y,  dy = g * x"""

    broadcasts = True
    saved_names, pack_order = ("self", "other"), (1, 0)

    @staticmethod
    def forward(ctx, x, y):
        # save only what the needed gradients read, as PyTorch does
        ctx.save_for_backward(
            x if ctx.needs_input_grad[1] else None, y if ctx.needs_input_grad[0] else None
        )
        return x * y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        needs_x, needs_y = ctx.needs_input_grad
        return g * y if needs_x else None, g * x if needs_y else None


class DivBackward0(Function):
    """out = x / y;  dx = g / y,  dy = -g * (x / y / y)"""

    quiet_floating_errors = True
    broadcasts = True
    saved_names, pack_order = ("self", "other"), (1, 0)

    @staticmethod
    def forward(ctx, x, y):
        x, y = _floating(x), _floating(y)
        ctx.save_for_backward(x if ctx.needs_input_grad[1] else None, y)
        return x / y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        needs_x, needs_y = ctx.needs_input_grad
        return g / y if needs_x else None, -g * (x / y / y) if needs_y else None


class NegBackward0(Function):
    """out = -x;  dx = -g"""

    @staticmethod
    def forward(ctx, x):
        if x.dtype == np.bool_:
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead."
            )
        return -x

    @staticmethod
    def backward(ctx, g):
        return -g


class SumBackward0(Function):
    """out = sum of every x;  dx = g broadcast to x's shape"""

    saved_values = ("self_sym_sizes",)

    @staticmethod
    def forward(ctx, x):
        ctx.self_sym_sizes = x.shape
        return np.sum(x, dtype=np.int64 if x.dtype.kind in "biu" else None)  # ints: int64

    @staticmethod
    def backward(ctx, g):
        return np.broadcast_to(g, ctx.self_sym_sizes)


class SumBackward1(Function):
    """out = sum(x, dim);  dx = g broadcast back to x's shape"""

    saved_values = ("dim", "keepdim", "self_sym_sizes")

    @staticmethod
    def forward(ctx, x, *, dim, keepdim=False):
        ctx.self_sym_sizes, ctx.axes, ctx.keepdim = x.shape, normalize_dims(dim, x.ndim), keepdim
        ctx.dim = _as_dims(dim)
        dtype = np.int64 if x.dtype.kind in "biu" else None  # PyTorch sums ints as int64
        return np.sum(x, axis=ctx.axes, keepdims=keepdim, dtype=dtype)

    @staticmethod
    def backward(ctx, g):
        return _expand_back(ctx, g)


class _Mean(Function):
    """out = mean(x, dim) (dim None: every x);  dx = g broadcast back, / n (n: elements
    averaged)"""

    quiet_floating_errors = True  # the mean of nothing is nan, without NumPy's warning
    saved_values = ("dim", "keepdim", "self_sym_numel", "self_sym_sizes")

    @staticmethod
    def forward(ctx, x, *, dim=None, keepdim=False):
        if x.dtype.kind != "f":
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating "
                f"point or complex dtype. Got: {scalar_type_name(x.dtype)}"
            )
        ctx.self_sym_sizes, ctx.axes, ctx.keepdim = x.shape, normalize_dims(dim, x.ndim), keepdim
        ctx.dim, ctx.self_sym_numel = _as_dims(dim), x.size
        ctx.count = _reduced_size(x.shape, ctx.axes)
        return _mean(x, ctx.axes, keepdim, ctx.count)

    @staticmethod
    def backward(ctx, g):
        # a new array, as PyTorch's expand then div
        return DivBackward1.call(_expand_back(ctx, g), ctx.count)


class MeanBackward1(_Mean):
    """out = mean(x, dim) (``mean(dim)``)"""


class MeanBackward0(_Mean):
    """out = mean of every x (``mean()``);  dx = g / n broadcast to x's shape"""

    saved_values = ("self_sym_numel", "self_sym_sizes")


def _unsqueezed(ctx, *reduced) -> tuple:
    """Arrays reduced over ``ctx.axes`` with those dims put back, of size 1 (as ``keepdim``
    leaves them), so that they line up with the input again."""
    if ctx.axes is None or ctx.keepdim:
        return reduced
    return tuple(np.expand_dims(a, ctx.axes) for a in reduced)


def _expand_back(ctx, g):
    """Broadcast a reduced gradient back to the input's shape."""
    (g,) = _unsqueezed(ctx, g)
    return np.broadcast_to(g, ctx.self_sym_sizes)


def _as_dims(dim):
    """A dim argument as PyTorch keeps it for ``_saved_dim``: None, or a tuple as given."""
    return None if dim is None else tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)


def _reduced_size(shape: tuple, axes) -> int:
    """How many elements a reduction over ``axes`` folds into each output: the input's size
    over the output's, as PyTorch counts it (0 for an empty input)."""
    kept = [] if axes is None else [s for i, s in enumerate(shape) if i not in axes]
    return int(np.prod(shape, dtype=np.int64)) // max(int(np.prod(kept, dtype=np.int64)), 1)


def _mean(x, axes, keepdims: bool, count: int):
    """``np.mean``; the mean of nothing is nan, without NumPy's "Mean of empty slice"."""
    if count == 0:
        return np.sum(x, axis=axes, keepdims=keepdims) * float("nan")
    return np.mean(x, axis=axes, keepdims=keepdims)
