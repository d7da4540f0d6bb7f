"""Powers: ``x ** y`` (three overloads, as PyTorch records them) and ``1 / x``."""

from __future__ import annotations

import numpy as np

from ..autograd.engine import Function
from .scalar import MulBackward1
from .unary import _Elementwise

__all__ = ["ReciprocalBackward0", "PowBackward0", "PowBackward1", "PowBackward2"]


class ReciprocalBackward0(_Elementwise):
    """out = 1 / x;  dx = -g * (out * out)"""

    quiet_floating_errors = True
    saved_names = ("result",)
    function = staticmethod(np.reciprocal)

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return -g * (out * out)


class PowBackward0(Function):
    """out = x ** y (y a number);  dx = g * y * x**(y-1)  (0 for y = 0, even at x = 0)"""

    numbers_are_scalars = True
    quiet_floating_errors = True
    argument_names = ("self", "exponent")
    saved_names, saved_values = ("self",), ("exponent",)

    @staticmethod
    def forward(ctx, x, y):
        _check_integer_power(x, y)
        ctx.save_for_backward(x)
        return _power(x, y)

    @staticmethod
    def backward(ctx, g):
        (x,), y = ctx.saved_tensors, ctx.exponent
        y = float(y)  # as PyTorch's formula takes it (a double)
        return np.zeros_like(g) if y == 0 else g * MulBackward1.call(x ** (y - 1), y), None


class PowBackward1(Function):
    """out = x ** y (two tensors);  dx = g * y * x**(y-1),  dy = g * out * log(x)"""

    quiet_floating_errors = True
    broadcasts = True
    saved_names = ("exponent", "self", "result")

    @staticmethod
    def forward(ctx, x, y):
        _check_integer_power(x, y)
        out = x**y
        ctx.save_for_backward(y, x, out if ctx.needs_input_grad[1] else None)
        return out

    @staticmethod
    def backward(ctx, g):
        y, x, out = ctx.saved_tensors
        needs_x, needs_y = ctx.needs_input_grad
        # d/dx x**0 is 0, even at x = 0
        gx = np.where(y == 0, np.zeros_like(g), g * (y * x ** (y - 1))) if needs_x else None
        gy = _exponent_grad(g, x, y, out) if needs_y else None
        return gx, gy


class PowBackward2(Function):
    """out = x ** y (x a number);  dy = g * out * log(x)"""

    numbers_are_scalars = True
    quiet_floating_errors = True
    argument_names = ("self", "exponent")
    saved_names, saved_values = ("exponent", "result"), ("self",)

    @staticmethod
    def forward(ctx, x, y):
        _check_integer_power(x, y)
        out = x**y
        ctx.save_for_backward(y, out)
        return out

    @staticmethod
    def backward(ctx, g):
        (y, out), x = ctx.saved_tensors, ctx.self
        return None, _exponent_grad(g, x, y, out)


def _check_integer_power(x, y) -> None:
    if x.dtype.kind in "iub" and np.ndim(y) == 0 and y.dtype.kind in "iu" and y < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")


def _exponent_grad(g, x, y, out):
    """g * out * log(x): 0 at x = 0 (for y >= 0); nan for x < 0, as in PyTorch"""
    zero = (y >= 0) & (x == 0)
    return np.where(zero, np.zeros_like(g), g * out * np.log(np.where(zero, 1, x)))


def _power(x, y):
    """x ** number, with PyTorch's exact forms for the exponents it special-cases (x*x*x for 3,
    1/(x*x) for -2, 1/sqrt(x) for -0.5): the last bits of float32 results match."""
    if x.dtype.kind == "f":
        e = float(y)
        if e == 3:
            return x * x * x
        if e == -2:
            return 1 / (x * x)
        if e == -0.5:
            return 1 / np.sqrt(x)
    return x**y
