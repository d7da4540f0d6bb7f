"""Functions of one tensor, elementwise: exp, log, trigonometry, activations, clamp."""

from __future__ import annotations

import numpy as np

from ..autograd.engine import Function
from .arithmetic import _floating
from .scalar import MulBackward1

__all__ = (
    "ExpBackward0 LogBackward0 SinBackward0 CosBackward0 TanBackward0 TanhBackward0 "
    "SigmoidBackward0 ReluBackward0 ThresholdBackwardBackward0 SqrtBackward0 SignBackward0 "
    "SgnBackward0 AbsBackward0 ClampBackward1 ClampMinBackward0 ClampMaxBackward0"
).split()


class _Elementwise(Function):
    """out = function(x), computed in floats (an int tensor in float32, as in PyTorch); forward
    saves what backward reads, as ``saved_names`` says: x (``self``) or out (``result``)"""

    @classmethod
    def forward(cls, ctx, x):
        x = _floating(x)
        out = cls.function(x)
        ctx.save_for_backward(out if cls.saved_names == ("result",) else x)
        return out


class ExpBackward0(_Elementwise):
    """out = e**x;  dx = g * out"""

    quiet_floating_errors = True
    saved_names = ("result",)
    function = staticmethod(np.exp)

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out


class LogBackward0(_Elementwise):
    """out = ln x;  dx = g / x"""

    quiet_floating_errors = True
    saved_names = ("self",)
    function = staticmethod(np.log)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g / x


class SinBackward0(_Elementwise):
    """out = sin x;  dx = g * cos x"""

    saved_names = ("self",)
    function = staticmethod(np.sin)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * np.cos(x)


class CosBackward0(_Elementwise):
    """out = cos x;  dx = g * -sin x"""

    saved_names = ("self",)
    function = staticmethod(np.cos)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * -np.sin(x)


class TanBackward0(_Elementwise):
    """out = tan x;  dx = g * (1 + out**2)"""

    saved_names = ("result",)
    function = staticmethod(np.tan)

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * (1 + out * out)


class TanhBackward0(_Elementwise):
    """out = tanh x;  dx = g * (1 - out**2)"""

    saved_names = ("result",)
    function = staticmethod(np.tanh)

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * (1 - out * out)


def _sigmoid(x):
    """1 / (1 + e**-x) in two forms, so that neither exp overflows."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


class SigmoidBackward0(_Elementwise):
    """out = 1 / (1 + e**-x);  dx = g * out * (1 - out)"""

    saved_names = ("result",)
    function = staticmethod(_sigmoid)

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out * (1 - out)


class ReluBackward0(Function):
    """out = max(x, 0);  dx = g where x > 0 (relu'(0) = 0, as in PyTorch)"""

    saved_names = ("result",)

    @staticmethod
    def forward(ctx, x):
        out = np.maximum(x, 0)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return ThresholdBackwardBackward0.call(g, out, threshold=0)  # (a node, on Tensors)


class ThresholdBackwardBackward0(Function):
    """out = g where x > threshold (relu's backward, recorded under create_graph);
    dg = gg where x > threshold,  dx = 0"""

    saved_names, saved_values = ("self",), ("threshold",)

    @staticmethod
    def forward(ctx, g, x, *, threshold):
        ctx.threshold = threshold
        ctx.save_for_backward(x)
        grad = g * (x > threshold)
        grad += 0.0  # turns the -0. of blocked negative g into 0. (in place: no new array)
        return grad

    @staticmethod
    def backward(ctx, gg):
        (x,) = ctx.saved_tensors
        return ThresholdBackwardBackward0.call(gg, x, threshold=ctx.threshold), np.zeros_like(x)


class SqrtBackward0(_Elementwise):
    """out = sqrt x;  dx = g / (2 * out)"""

    quiet_floating_errors = True
    saved_names = ("result",)
    function = staticmethod(np.sqrt)

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g / MulBackward1.call(out, 2)


class _Step(Function):
    """out = sign x (-1, 0 or 1);  dx = 0 (a step: flat wherever it has a slope)"""

    @staticmethod
    def forward(ctx, x):
        return np.sign(x)

    @staticmethod
    def backward(ctx, g):
        return np.zeros_like(g)  # exact zeros (0 * g would give -0. or nan), as PyTorch


class SignBackward0(_Step):
    """out = sign x"""


class SgnBackward0(_Step):
    """out = sgn x (for real x the same as sign);  dx = 0. PyTorch's abs backward records it"""

    saved_names = ("self", "result")  # what PyTorch keeps for complex inputs

    @staticmethod
    def forward(ctx, x):
        out = np.sign(x)
        ctx.save_for_backward(x, out)
        return out


class AbsBackward0(Function):
    """out = |x|;  dx = g * sign(x)  (abs'(0) = 0)"""

    saved_names = ("self",)

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.abs(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * SgnBackward0.call(x)  # on Tensors (create_graph) this records SgnBackward0


class _Clamp(Function):
    """out = min(max(x, lo), hi);  dx = g where lo <= x <= hi (1 at the bounds)"""

    saved_names = ("self",)

    @staticmethod
    def forward(ctx, x, *, min=None, max=None):  # noqa: A002  (PyTorch's names)
        ctx.save_for_backward(x)
        ctx.min, ctx.max = min, max
        return np.clip(x, min, max)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        low = -np.inf if ctx.min is None else ctx.min  # a missing bound blocks nothing (but nan)
        high = np.inf if ctx.max is None else ctx.max
        # + 0.0: blocked gradients are 0., not -0. (as torch prints)
        return g * ((x >= low) & (x <= high)) + 0.0


class ClampBackward1(_Clamp):
    """``clamp`` with number bounds"""

    saved_values = ("max", "min")


class ClampMinBackward0(_Clamp):
    """out = max(x, min) (``clamp_min``, a number);  dx = g where x >= min"""

    saved_values = ("min",)


class ClampMaxBackward0(_Clamp):
    """out = min(x, max) (``clamp_max``, a number);  dx = g where x <= max"""

    saved_values = ("max",)
