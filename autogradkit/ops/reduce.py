"""Reductions over all elements or over ``dim`` (with ``keepdim``)."""

from __future__ import annotations

import warnings

import numpy as np

from .._shape import normalize_dims
from ..autograd.function import Function
from .unary import Sgn


def _expand_back(g, shape: tuple, axes, keepdim: bool):
    """Broadcast a reduced gradient back to the input's shape."""
    if axes is not None and not keepdim:
        g = np.expand_dims(g, axes)
    return np.broadcast_to(g, shape)


class Sum(Function):
    """out = sum(x, dim);  dx = g broadcast back to x's shape"""

    @classmethod
    def overload_for(cls, inputs, static):
        return 0 if static.get("dim") is None else 1  # sum() vs sum(dim)

    @staticmethod
    def forward(ctx, x, *, dim=None, keepdim=False):
        ctx.shape, ctx.axes, ctx.keepdim = x.shape, normalize_dims(dim, x.ndim), keepdim
        dtype = np.int64 if x.dtype.kind in "biu" else None  # PyTorch sums ints as int64
        return np.sum(x, axis=ctx.axes, keepdims=keepdim, dtype=dtype)

    @staticmethod
    def backward(ctx, g):
        return _expand_back(g, ctx.shape, ctx.axes, ctx.keepdim)


class Mean(Function):
    """out = mean(x, dim);  dx = g / n broadcast back (n: elements averaged)"""

    quiet_floating_errors = True  # the mean of nothing is nan, without NumPy's warning

    @classmethod
    def overload_for(cls, inputs, static):
        return 0 if static.get("dim") is None else 1

    @staticmethod
    def forward(ctx, x, *, dim=None, keepdim=False):
        if x.dtype.kind != "f":
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating "
                f"point or complex dtype. Got: {_type_name(x.dtype)}"
            )
        ctx.shape, ctx.axes, ctx.keepdim = x.shape, normalize_dims(dim, x.ndim), keepdim
        ctx.count = _reduced_size(x.shape, ctx.axes)
        return _mean(x, ctx.axes, keepdim, ctx.count)

    @staticmethod
    def backward(ctx, g):
        return _expand_back(g / ctx.count, ctx.shape, ctx.axes, ctx.keepdim)


class Prod(Function):
    """out = product of x (over dim);  dx = g * out / x, or where the slice holds a zero,
    g times the product of the others (PyTorch's prod_backward)"""

    @classmethod
    def overload_for(cls, inputs, static):
        return 0 if static.get("dim") is None else 1  # prod() vs prod(dim)

    @staticmethod
    def forward(ctx, x, *, dim=None, keepdim=False):
        ctx.axes, ctx.keepdim = normalize_dims(dim, x.ndim), keepdim
        dtype = np.int64 if x.dtype.kind in "biu" else None  # ints multiply as int64
        out = np.asarray(np.prod(x, axis=ctx.axes, keepdims=keepdim, dtype=dtype))
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        if ctx.axes is not None and not ctx.keepdim:
            g, out = np.expand_dims(g, ctx.axes), np.expand_dims(out, ctx.axes)
        zeros = x == 0
        if not np.any(zeros):
            return g * (out / x)
        if ctx.axes is None and isinstance(x, np.ndarray) and np.count_nonzero(zeros) > 1:
            return np.zeros_like(x)  # PyTorch's shortcut when no graph of this is wanted
        if ctx.axes is None:  # over everything: the same as over one axis of x flattened
            return g * np.reshape(_product_of_others(np.reshape(x, (-1,)), 0), np.shape(x))
        return g * _product_of_others(x, ctx.axes[0])


def _product_of_others(x, axis: int):
    """For each entry, the product of the other entries of its slice along ``axis`` (works
    with zeros, unlike out / x): the slice repeated once per entry, that entry set to 1."""
    n = np.shape(x)[axis]
    own = np.eye(n, dtype=bool).reshape((n, n) + (1,) * (np.ndim(x) - axis - 1))
    return np.prod(np.where(own, 1, np.expand_dims(x, axis)), axis=axis + 1)


class Logsumexp(Function):
    """out = log(sum(exp(x), dim));  dx = g * exp(x - out)"""

    quiet_floating_errors = True  # log(0) = -inf for a slice of -inf, as in PyTorch

    @staticmethod
    def forward(ctx, x, *, dim, keepdim=False):
        ctx.axes, ctx.keepdim = normalize_dims(dim, x.ndim), keepdim
        top = x.max(axis=ctx.axes, keepdims=True)  # shifted first: exp cannot overflow
        top = np.where(np.abs(top) == np.inf, 0, top)  # an infinite max shifts nothing
        out = np.log(np.exp(x - top).sum(axis=ctx.axes, keepdims=True)) + top
        out = out if keepdim else np.squeeze(out, axis=ctx.axes)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        if not ctx.keepdim:
            g, out = np.expand_dims(g, ctx.axes), np.expand_dims(out, ctx.axes)
        return g * np.exp(x - out)


class Var(Function):
    """out = sum((x - mean)**2) / (n - correction);  dx = g * 2 (x - mean) / (n - correction)"""

    quiet_floating_errors = True  # no degrees of freedom left: nan, as in PyTorch

    @staticmethod
    def forward(ctx, x, *, dim=None, correction=1, keepdim=False):
        centered = _centered(ctx, x, dim, correction, keepdim, "var")
        ctx.save_for_backward(x)
        squares = np.sum(centered * centered, axis=ctx.axes, keepdims=keepdim)
        return squares / x.dtype.type(ctx.divisor)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        # recomputed from x (not saved) so that create_graph sees how it depends on x
        centered = x - _mean(x, ctx.axes, True, ctx.count)
        scale = 2 / ctx.divisor if ctx.divisor else float("inf")
        return _expand_back(g, ctx.shape, ctx.axes, ctx.keepdim) * centered * scale


class Std(Function):
    """out = sqrt(var(x));  dx = g * (x - mean) / ((n - correction) * out)  (0 where out = 0)"""

    quiet_floating_errors = True  # g / 0 where all values are equal: replaced by 0 below

    @staticmethod
    def forward(ctx, x, *, dim=None, correction=1, keepdim=False):
        centered = _centered(ctx, x, dim, correction, keepdim, "std")
        squares = np.sum(centered * centered, axis=ctx.axes, keepdims=keepdim)
        out = np.sqrt(squares / x.dtype.type(ctx.divisor))
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        centered = x - _mean(x, ctx.axes, True, ctx.count)
        scale = np.where(out == 0, 0, g / (out * ctx.divisor))  # as PyTorch's std_backward
        scale = _expand_back(scale, ctx.shape, ctx.axes, ctx.keepdim)
        return scale * centered


class LinalgVectorNorm(Function):
    """out = (sum |x|^p)^(1/p) over dim (p = inf: max |x|; p = 0: how many x != 0);
    dx = g x / out for p = 2, g sign(x) |x|^(p-1) / out^(p-1) for other p (0 where out = 0)"""

    quiet_floating_errors = True  # x / out at out = 0 is replaced by 0, as in PyTorch

    @staticmethod
    def forward(ctx, x, *, p, dim=None, keepdim=False):
        if x.dtype.kind != "f":
            raise RuntimeError(
                "linalg.vector_norm: Expected a floating point or complex tensor "
                f"as input. Got {_type_name(x.dtype)}"
            )
        ctx.p, ctx.axes, ctx.keepdim = p, normalize_dims(dim, x.ndim), keepdim
        if p == 2:  # the usual case: sqrt of the sum of squares
            out = np.sqrt(np.sum(x * x, axis=ctx.axes, keepdims=keepdim))
        elif np.isinf(p):
            out = (np.max if p > 0 else np.min)(np.abs(x), axis=ctx.axes, keepdims=keepdim)
        elif p == 0:
            out = np.sum(x != 0, axis=ctx.axes, keepdims=keepdim)
        else:
            out = np.sum(np.abs(x) ** p, axis=ctx.axes, keepdims=keepdim) ** (1 / p)
        out = np.asarray(out, x.dtype)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        if ctx.axes is not None and not ctx.keepdim:  # line the norm up with x's dims again
            g, out = np.expand_dims(g, ctx.axes), np.expand_dims(out, ctx.axes)
        p = ctx.p
        if p == 0:
            return None  # a count is flat: no gradient at all (x.grad stays None, as in PyTorch)
        if p == 1:
            return Sgn.call(x) * g
        if p == 2:
            return g * np.where(out == 0, 0, x / out)
        if np.isinf(p):  # like max: the largest |x| (and any nan) share the gradient
            peak = (np.abs(x) == out) | np.isnan(x)
            return Sgn.call(x) * (g / np.sum(peak, axis=ctx.axes, keepdims=True) * peak)
        if p < 1:
            return np.where(x == 0, 0, Sgn.call(x) * np.abs(x) ** (p - 1)) * g * out ** (1 - p)
        return Sgn.call(x) * np.abs(x) ** (p - 1) * np.where(out == 0, 0, g / out ** (p - 1))


class Max(Function):
    """out = max(x) (ties share the gradient equally) or max(x, dim) (first index gets it)"""

    @classmethod
    def overload_for(cls, inputs, static):
        return 1 if static.get("dim") is None else 0  # max() is MaxBackward1 in PyTorch

    reduce = staticmethod(np.max)
    arg = staticmethod(np.argmax)

    @classmethod
    def forward(cls, ctx, x, *, dim=None, keepdim=False):
        ctx.shape, ctx.keepdim, ctx.dim = x.shape, keepdim, dim
        if dim is None:
            out = cls.reduce(x)
            ctx.save_for_backward(x, out)
            return out
        (axis,) = normalize_dims(dim, x.ndim)
        ctx.axis = axis
        indices = np.expand_dims(cls.arg(x, axis=axis), axis)
        ctx.chosen = np.zeros(x.shape, bool)  # one True per slice: the first max
        np.put_along_axis(ctx.chosen, indices, True, axis)
        values = np.take_along_axis(x, indices, axis)
        if not keepdim:
            values, indices = values.squeeze(axis), indices.squeeze(axis)
        ctx.mark_non_differentiable(indices)
        return values, indices

    @staticmethod
    def backward(ctx, g, g_indices=None):
        if ctx.dim is None:
            x, out = ctx.saved_tensors
            ties = x == out  # ties share the gradient equally, the rest get exact zeros
            return np.where(ties, g / np.sum(ties), np.zeros_like(x))
        if not ctx.keepdim:
            g = np.expand_dims(g, ctx.axis)
        # only the first index of each max gets the gradient (zeros, not g * 0: no -0.)
        return np.where(ctx.chosen, g, np.zeros_like(g))


class Min(Max):
    """out = min(x) or min(x, dim); gradient rules as for max"""

    reduce = staticmethod(np.min)
    arg = staticmethod(np.argmin)


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


def _centered(ctx, x, dim, correction, keepdim: bool, name: str):
    """x minus its mean, for var and std, with their state on ctx and PyTorch's warning when
    ``correction`` leaves no degrees of freedom."""
    ctx.shape, ctx.axes, ctx.keepdim = x.shape, normalize_dims(dim, x.ndim), keepdim
    ctx.count = _reduced_size(x.shape, ctx.axes)
    ctx.divisor = max(0, ctx.count - correction)
    if ctx.divisor == 0:
        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than "
            "the reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=5,
        )
    return x - _mean(x, ctx.axes, True, ctx.count)


def _type_name(np_dtype) -> str:
    return {"i": "Long", "b": "Bool", "u": "Byte"}.get(np.dtype(np_dtype).kind, str(np_dtype))
