"""How spread out or how large: variance, standard deviation and vector norms."""

from __future__ import annotations

import warnings

import numpy as np

from .._dtype import scalar_type_name
from .._shape import normalize_dims
from ..autograd.engine import Function
from .arithmetic import _as_dims, _expand_back, _mean, _reduced_size, _unsqueezed
from .unary import SgnBackward0

__all__ = ["VarBackward0", "StdBackward0", "LinalgVectorNormBackward0"]


class VarBackward0(Function):
    """out = sum((x - mean)**2) / (n - correction);  dx = g * 2 (x - mean) / (n - correction)"""

    quiet_floating_errors = True  # no degrees of freedom left: nan, as in PyTorch
    saved_names = ("self",)
    saved_values = ("correction", "dim", "keepdim")  # correction None: var() with no argument

    @staticmethod
    def forward(ctx, x, *, dim=None, correction=None, keepdim=False):
        ctx.save_for_backward(x)
        return _variance(ctx, x, dim, correction, keepdim, "var")

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        # recomputed from x (not saved) so that create_graph sees how it depends on x
        centered = x - _mean(x, ctx.axes, True, ctx.count)
        scale = 2 / ctx.divisor if ctx.divisor else float("inf")
        return _expand_back(ctx, g) * centered * scale


class StdBackward0(Function):
    """out = sqrt(var(x));  dx = g * (x - mean) / ((n - correction) * out)  (0 where out = 0)"""

    quiet_floating_errors = True  # g / 0 where all values are equal: replaced by 0 below
    saved_names = ("self", "result")
    saved_values = ("correction", "dim", "keepdim")

    @staticmethod
    def forward(ctx, x, *, dim=None, correction=None, keepdim=False):
        out = np.sqrt(_variance(ctx, x, dim, correction, keepdim, "std"))
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        centered = x - _mean(x, ctx.axes, True, ctx.count)
        scale = np.where(out == 0, 0, g / (out * ctx.divisor))  # as PyTorch's std_backward
        return _expand_back(ctx, scale) * centered


class LinalgVectorNormBackward0(Function):
    """out = (sum |x|^p)^(1/p) over dim (p = inf: max |x|; p = 0: how many x != 0);
    dx = g x / out for p = 2, g sign(x) |x|^(p-1) / out^(p-1) for other p (0 where out = 0)"""

    quiet_floating_errors = True  # x / out at out = 0 is replaced by 0, as in PyTorch
    saved_names = ("self", "result")
    saved_values = ("dim", "keepdim", "ord")

    @staticmethod
    def forward(ctx, x, *, p, dim=None, keepdim=False):
        if x.dtype.kind != "f":
            raise RuntimeError(
                "linalg.vector_norm: Expected a floating point or complex tensor "
                f"as input. Got {scalar_type_name(x.dtype)}"
            )
        ctx.p, ctx.axes, ctx.keepdim = p, normalize_dims(dim, x.ndim), keepdim
        ctx.ord, ctx.dim = p, _as_dims(dim)
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
        g, out = _unsqueezed(ctx, g, out)  # the norm lined up with x's dims again
        p = ctx.p
        if p == 0:
            return None  # a count is flat: no gradient at all (x.grad stays None, as in PyTorch)
        if p == 1:
            return SgnBackward0.call(x) * g
        if p == 2:
            return g * np.where(out == 0, 0, x / out)
        if np.isinf(p):  # like max: the largest |x| (and any nan) share the gradient
            peak = (np.abs(x) == out) | np.isnan(x)
            return SgnBackward0.call(x) * (g / np.sum(peak, axis=ctx.axes, keepdims=True) * peak)
        scaled = SgnBackward0.call(x) * np.abs(x) ** (p - 1)  # PyTorch's self_scaled
        if p < 1:
            return np.where(x == 0, 0, scaled) * g * out ** (1 - p)
        return scaled * np.where(out == 0, 0, g / out ** (p - 1))


def _variance(ctx, x, dim, correction, keepdim: bool, name: str):
    """The variance of x over dim, for var and std, with their state on ctx and PyTorch's
    warning when ``correction`` (None: 1) leaves no degrees of freedom."""
    ctx.self_sym_sizes, ctx.axes, ctx.keepdim = x.shape, normalize_dims(dim, x.ndim), keepdim
    ctx.dim, ctx.correction = _as_dims(dim), correction
    ctx.count = _reduced_size(x.shape, ctx.axes)
    ctx.divisor = max(0, ctx.count - (1 if correction is None else correction))
    if ctx.divisor == 0:
        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than "
            "the reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=5,
        )
    centered = x - _mean(x, ctx.axes, True, ctx.count)
    squares = np.sum(centered * centered, axis=ctx.axes, keepdims=keepdim)
    return squares / x.dtype.type(ctx.divisor)
